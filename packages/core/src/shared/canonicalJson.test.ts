import { describe, expect, it } from 'vitest';
import { callerDigest, callerOf } from '../caller.ts';
import { canonicalJson } from './canonicalJson.ts';

describe('canonicalJson', () => {
  it('gives equal values equal text, whatever order their keys were written in', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(canonicalJson({ a: [{ c: 3, d: 2 }], b: 1 })).toBe(
      canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }),
    );
  });

  it('keeps a "__proto__" key as a member, so two identities that differ only there differ', () => {
    // JSON.parse makes an own "__proto__" key, as a decoded token's claims may hold.
    const alice = JSON.parse('{"__proto__": "alice", "role": "user"}') as unknown;
    const bob = JSON.parse('{"__proto__": "bob", "role": "user"}') as unknown;
    expect(canonicalJson(alice)).toBe('{"__proto__":"alice","role":"user"}');
    expect(callerDigest(callerOf(alice))).not.toBe(callerDigest(callerOf(bob)));
  });
});
