import { describe, expect, it } from 'vitest';
import { asJson } from './asJson.ts';
import { deepCopy } from './deepCopy.ts';
import { jsonSize } from './jsonSize.ts';
import { forInListsOwnKeys } from './ownKeys.ts';

describe('the walks over plain data, when Object.prototype has an enumerable key', () => {
  it('give what JSON and structuredClone give: an inherited key is no key of the value', () => {
    const value = { id: 'tally/t1', state: { n: 1, tags: ['a'] }, marks: {} };
    const text = JSON.stringify(value);
    expect(forInListsOwnKeys()).toBe(true);
    (Object.prototype as Record<string, unknown>).polluted = 'yes';
    try {
      expect(forInListsOwnKeys()).toBe(false);
      expect(jsonSize(value)).toBe(text.length);
      const json = asJson(value) as Record<string, unknown>;
      const copy = deepCopy(value) as Record<string, unknown>;
      for (const result of [json, copy]) {
        expect(Object.keys(result)).toEqual(['id', 'state', 'marks']);
        expect(Object.keys(result.state as object)).toEqual(['n', 'tags']);
        expect(JSON.stringify(result)).toBe(text);
      }
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(forInListsOwnKeys()).toBe(true);
  });
});
