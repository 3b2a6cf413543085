import { describe, expect, it } from 'vitest';
import { refusalNotes } from './refusals.ts';

describe('refusalNotes', () => {
  it('prints each refusal once, and no more than 50 distinct ones in a run', () => {
    const lines: string[] = [];
    const note = refusalNotes((line) => lines.push(line));
    note('GET /', 'not allowed');
    note('GET /again', 'not allowed');
    expect(lines).toEqual(['baton dev: refused GET /: not allowed']);
    for (let n = 0; n < 60; n++) note('a WebSocket', `host ${n}`);
    expect(lines).toHaveLength(50);
    expect(lines.at(-1)).toBe('baton dev: refused a WebSocket: host 48');
  });
});
