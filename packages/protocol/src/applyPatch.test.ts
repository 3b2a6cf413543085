import { ErrorCode, isBatonError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { applyPatch } from './applyPatch.ts';
import type { JsonPatchOp, JsonValue } from './JsonPatchOp.ts';

const doc = { user: { name: 'alice', tags: ['a', 'b'] }, items: [{ id: 1 }, { id: 2 }], n: 1 };

describe('applyPatch', () => {
  it('adds, removes and replaces members of objects and arrays', () => {
    const next = applyPatch(doc, [
      { op: 'replace', path: '/user/name', value: 'bob' },
      { op: 'add', path: '/user/tags/1', value: 'x' },
      { op: 'add', path: '/user/tags/-', value: 'z' },
      { op: 'remove', path: '/items/0' },
      { op: 'add', path: '/new', value: null },
      { op: 'add', path: '/n', value: 2 },
    ]);
    expect(next).toEqual({
      user: { name: 'bob', tags: ['a', 'x', 'b', 'z'] },
      items: [{ id: 2 }],
      n: 2,
      new: null,
    });
  });

  it('keeps untouched parts as the same objects and never changes its input', () => {
    const before = structuredClone(doc);
    const next = applyPatch(doc, [
      { op: 'replace', path: '/user/name', value: 'bob' },
    ]) as typeof doc;
    expect(doc).toEqual(before);
    expect(next).not.toBe(doc);
    expect(next.user).not.toBe(doc.user);
    expect(next.items).toBe(doc.items);
    expect(next.user.tags).toBe(doc.user.tags);
  });

  it('replaces the whole document at the empty path', () => {
    expect(applyPatch(doc, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
    expect(applyPatch(1, [{ op: 'add', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    expect(applyPatch(doc, [])).toBe(doc);
  });

  const bad: [string, JsonPatchOp, RegExp][] = [
    ['a missing member', { op: 'replace', path: '/nope', value: 1 }, /"nope" is missing/],
    ['a missing parent', { op: 'add', path: '/nope/x', value: 1 }, /"nope" is missing/],
    [
      'a path through a leaf',
      { op: 'add', path: '/n/x', value: 1 },
      /"n" is not an object or array/,
    ],
    [
      'an index past the end',
      { op: 'remove', path: '/items/2' },
      /"2" is not an index of an array of length 2/,
    ],
    ['an add past the end', { op: 'add', path: '/items/3', value: 1 }, /"3" is not an index/],
    ['a leading zero', { op: 'replace', path: '/items/01', value: 1 }, /"01" is not an index/],
    ['"-" outside add', { op: 'remove', path: '/items/-' }, /"-" is not an index/],
    ['a bad escape', { op: 'remove', path: '/a~2b' }, /not a JSON Pointer/],
    ['no leading slash', { op: 'remove', path: 'user' }, /not a JSON Pointer/],
    ['removing the document', { op: 'remove', path: '' }, /whole document cannot be removed/],
  ];

  for (const [what, op, message] of bad) {
    it(`refuses ${what} with an INVALID_PAYLOAD naming the op`, () => {
      try {
        applyPatch(doc, [{ op: 'add', path: '/ok', value: 1 }, op]);
        expect.unreachable();
      } catch (error) {
        expect(isBatonError(error)).toBe(true);
        if (!isBatonError(error)) return;
        expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
        expect(error.message).toMatch(/^patch op 1 /);
        expect(error.message).toMatch(message);
        expect(error.details).toMatchObject({ reason: 'INVALID_PATCH', index: 1, path: op.path });
      }
    });
  }

  it('refuses a member path into a primitive document', () => {
    expect(() => applyPatch('x' as JsonValue, [{ op: 'add', path: '/a', value: 1 }])).toThrow(
      /the document is not an object or array/,
    );
  });
});
