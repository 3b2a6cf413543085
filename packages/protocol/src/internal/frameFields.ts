/**
 * The fields of every frame type and their hand-written checks (frames are decoded one per
 * WebSocket message, so no schema library on this path).
 */
import { ErrorCode, MAX_ACTOR_KEY_BYTES, MAX_NAME_LENGTH } from '@baton/core';
import { MAX_ID_LENGTH } from '../messages.ts';
import { ProtocolErrorReason, protocolError } from '../ProtocolErrorReason.ts';

type Kind =
  | 'id'
  | 'name'
  | 'actorId'
  | 'key'
  | 'string'
  | 'version'
  | 'index'
  | 'count'
  | 'number'
  | 'boolean'
  | 'json'
  | 'resume'
  | 'ops'
  | 'versions'
  | 'error';

interface Field {
  readonly name: string;
  readonly kind: Kind;
  readonly optional: boolean;
}

export type FrameSpec = readonly Field[];

const f = (name: string, kind: Kind, optional = false): Field => ({ name, kind, optional });

const chunk: FrameSpec = [
  f('chunkId', 'key'),
  f('index', 'index'),
  f('count', 'count'),
  f('data', 'string'),
];
const sendFields = [
  f('requestId', 'key'),
  f('to', 'actorId'),
  f('name', 'name'),
  f('payload', 'json'),
  f('traceparent', 'string', true),
];

export const CLIENT_SPECS: ReadonlyMap<string, FrameSpec> = new Map([
  [
    'subscribe',
    [f('id', 'key'), f('query', 'name'), f('args', 'json'), f('resume', 'resume', true)],
  ],
  ['unsubscribe', [f('id', 'key')]],
  ['send', [...sendFields, f('idempotencyKey', 'key'), f('visible', 'boolean', true)]],
  ['ask', [...sendFields, f('idempotencyKey', 'key')]],
  ['ack', [f('id', 'key'), f('version', 'version')]],
  ['acks', [f('versions', 'versions')]],
  ['received', [f('frames', 'index')]],
  ['ping', [f('t', 'number')]],
  ['chunk', chunk],
]);

const pushed = [f('id', 'id'), f('version', 'version'), f('hash', 'string')];

export const SERVER_SPECS: ReadonlyMap<string, FrameSpec> = new Map([
  ['result', [...pushed, f('value', 'json')]],
  ['patch', [...pushed, f('baseVersion', 'version'), f('ops', 'ops')]],
  ['unchanged', pushed],
  ['error', [f('id', 'id', true), f('requestId', 'id', true), f('error', 'error')]],
  ['accepted', [f('requestId', 'id'), f('messageId', 'id')]],
  ['reply', [f('requestId', 'id'), f('value', 'json')]],
  ['visible', [f('requestId', 'id'), f('messageId', 'id')]],
  ['pong', [f('t', 'number')]],
  ['chunk', chunk],
]);

/**
 * The longest actor id a client names: a type, `/` and a key (a key's limit is in UTF-8
 * bytes, never fewer than its characters). A host refuses a longer one before it looks it up.
 */
const MAX_ACTOR_ID_LENGTH = MAX_NAME_LENGTH + 1 + MAX_ACTOR_KEY_BYTES;

const EXPECTED: Record<Kind, string> = {
  id: 'a non-empty string',
  name: `a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
  actorId: `an actor id "type/key" of at most ${MAX_ACTOR_ID_LENGTH} characters`,
  key: `a non-empty string of at most ${MAX_ID_LENGTH} characters`,
  string: 'a string',
  version: 'a non-negative integer',
  index: 'a non-negative integer',
  count: 'a positive integer',
  number: 'a finite number',
  boolean: 'a boolean',
  json: 'a JSON value',
  resume: 'an object { version, hash }',
  ops: 'an array of patch operations',
  versions: 'an object of at least one subscription id to its version',
  error: 'an object { code, message, details }',
};

/** Copies the known fields of `raw` into `out`, checking each; throws INVALID_FIELD naming one. */
export function readFields(
  type: string,
  spec: FrameSpec,
  raw: Record<string, unknown>,
  out: Record<string, unknown>,
): void {
  for (const field of spec) {
    const value = raw[field.name];
    if (value === undefined) {
      if (field.optional || field.kind === 'json') continue;
      throw missingField(type, field.name, EXPECTED[field.kind], unknownFields(spec, raw));
    }
    out[field.name] = readValue(type, field.name, field.kind, value);
  }
}

/** The most unknown fields a refusal names. */
const MAX_NAMED = 5;

/** The fields of `raw` its type does not have (but `v` and `type`), the first few. */
function unknownFields(spec: FrameSpec, raw: Record<string, unknown>): string[] {
  const known = new Set(['v', 'type', ...spec.map((field) => field.name)]);
  return Object.keys(raw)
    .filter((key) => !known.has(key))
    .slice(0, MAX_NAMED);
}

/** A required field is missing: a field the frame has that its type does not is named too. */
function missingField(type: string, field: string, expected: string, unknown: string[]) {
  if (unknown.length === 0) return invalidField(type, field, expected, undefined);
  const names = unknown.map((key) => describe(key)).join(', ');
  return protocolError(
    ErrorCode.INVALID_PAYLOAD,
    ProtocolErrorReason.INVALID_FIELD,
    `"${type}" frame: field "${field}" must be ${expected}, got nothing; the frame has ${unknown.length === 1 ? 'a field' : 'fields'} "${type}" frames do not: ${names} (misspelt?)`,
    { type, field, expected, unknown: unknown.map((key) => key.slice(0, 40)) },
  );
}

function readValue(type: string, path: string, kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'json':
      return value;
    case 'id':
      if (typeof value === 'string' && value.length > 0) return value;
      break;
    case 'key':
      if (isString(value, MAX_ID_LENGTH)) return value;
      break;
    case 'name':
      if (isString(value, MAX_NAME_LENGTH)) return value;
      break;
    case 'actorId':
      if (isString(value, MAX_ACTOR_ID_LENGTH)) return value;
      break;
    case 'string':
      if (typeof value === 'string') return value;
      break;
    case 'version':
    case 'index':
      if (Number.isSafeInteger(value) && (value as number) >= 0) return value;
      break;
    case 'count':
      if (Number.isSafeInteger(value) && (value as number) >= 1) return value;
      break;
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      break;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      break;
    case 'resume':
      if (isRecord(value)) {
        return {
          version: readValue(type, `${path}.version`, 'version', value.version),
          hash: readValue(type, `${path}.hash`, 'string', value.hash),
        };
      }
      break;
    case 'error':
      if (isRecord(value)) return readError(type, path, value);
      break;
    case 'ops':
      if (Array.isArray(value)) return value.map((op, i) => readOp(type, `${path}[${i}]`, op));
      break;
    case 'versions':
      if (isRecord(value)) return readVersions(type, path, value);
      break;
  }
  throw invalidField(type, path, EXPECTED[kind], value);
}

function readError(type: string, path: string, value: Record<string, unknown>): unknown {
  const details = value.details;
  if (details !== undefined && !isRecord(details)) {
    throw invalidField(type, `${path}.details`, 'an object', details);
  }
  return {
    code: readValue(type, `${path}.code`, 'id', value.code),
    message: readValue(type, `${path}.message`, 'string', value.message),
    details: details ?? {},
  };
}

function readVersions(type: string, path: string, value: Record<string, unknown>): unknown {
  const ids = Object.keys(value);
  if (ids.length === 0) throw invalidField(type, path, EXPECTED.versions, value);
  // A null prototype: an id such as "__proto__" is a key like any other.
  const versions: Record<string, unknown> = Object.create(null);
  for (const id of ids) {
    if (id === '') throw invalidField(type, `${path}[""]`, 'a non-empty subscription id', id);
    if (id.length > MAX_ID_LENGTH) {
      throw invalidField(
        type,
        `${path}[…]`,
        `a subscription id of at most ${MAX_ID_LENGTH} characters`,
        id,
      );
    }
    const name = id.length <= 40 ? id : `${id.slice(0, 40)}…`;
    versions[id] = readValue(type, `${path}.${name}`, 'version', value[id]);
  }
  return versions;
}

function readOp(type: string, path: string, op: unknown): unknown {
  if (!isRecord(op)) throw invalidField(type, path, 'a patch operation object', op);
  const name = op.op;
  if (name !== 'add' && name !== 'remove' && name !== 'replace') {
    throw invalidField(type, `${path}.op`, '"add", "remove" or "replace"', name);
  }
  const pointer = op.path;
  if (typeof pointer !== 'string' || (pointer !== '' && pointer[0] !== '/')) {
    throw invalidField(type, `${path}.path`, 'a JSON Pointer ("" or starting with "/")', pointer);
  }
  if (name === 'remove') return { op: name, path: pointer };
  if (!Object.hasOwn(op, 'value'))
    throw invalidField(type, `${path}.value`, 'a JSON value', undefined);
  return { op: name, path: pointer, value: op.value };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function invalidField(type: string, field: string, expected: string, got: unknown) {
  return protocolError(
    ErrorCode.INVALID_PAYLOAD,
    ProtocolErrorReason.INVALID_FIELD,
    `"${type}" frame: field "${field}" must be ${expected}, got ${describe(got)}`,
    { type, field, expected },
  );
}

/** A short description of a bad value, never echoing more than a few characters of it. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    return value.length <= 40 ? JSON.stringify(value) : `a string of ${value.length} characters`;
  }
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

/** A non-empty string of at most `max` characters. */
function isString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}
