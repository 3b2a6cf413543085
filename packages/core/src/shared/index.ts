/**
 * `@baton/core/shared`: the helpers every layer uses, the browser client and the wire protocol
 * included — actor ids, canonical JSON, copies of plain data, JSON as stored and its byte size, one UTF-8 byte count,
 * SHA-256, seeded randomness and UUIDs, what a schema refused (`schemaIssues`), and the `Writable` type. Pure functions with no Node built-in, importing only the
 * error model (`errors.ts`), nothing of the app API, the adapter ports or the engine.
 */
export { actorId, parseActorId } from './actorId.ts';
export { asJson, asStrictJson } from './asJson.ts';
export { canonicalJson } from './canonicalJson.ts';
export { CLIP_CHARS, clip } from './clip.ts';
export { deepCopy } from './deepCopy.ts';
export { jsonSize } from './jsonSize.ts';
export { lifeId, type Random, seededRandom, uuidFrom } from './random.ts';
export { MAX_SCHEMA_ISSUES, type SchemaIssue, schemaIssues } from './schemaIssues.ts';
export { digest128, sha256 } from './sha256.ts';
export { fitsUtf8, isHighSurrogate, isLowSurrogate, utf8ByteLength, utf8Bytes } from './utf8.ts';
export type { Writable } from './Writable.ts';
