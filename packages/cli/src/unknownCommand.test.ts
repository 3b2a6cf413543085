import { describe, expect, it } from 'vitest';
import { closestWord, editDistance, unknownTopCommand } from './unknownCommand.ts';

const WORDS = ['init', 'dev', 'status', 'actors', 'dead-letters', 'queue-dead-letters', 'timers'];

describe('the nearest command to a misspelt one', () => {
  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('actor', 'actors')).toBe(1);
    expect(editDistance('status', 'status')).toBe(0);
    expect(editDistance('', 'dev')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests the nearest word only when it is near', () => {
    expect(closestWord('stauts', WORDS)).toBe('status');
    expect(closestWord('actor', WORDS)).toBe('actors');
    expect(closestWord('deadletters', WORDS)).toBe('dead-letters');
    expect(closestWord('Timers', WORDS)).toBe('timers');
    expect(closestWord('frobnicate', WORDS)).toBeUndefined();
    expect(closestWord('x', WORDS)).toBeUndefined();
  });

  it('says the word, the nearest command and where the commands are listed', () => {
    expect(unknownTopCommand('stauts', WORDS)).toBe(
      'unknown command "stauts": did you mean "status"? baton --help lists the commands',
    );
    expect(unknownTopCommand('frobnicate', WORDS)).toBe(
      'unknown command "frobnicate": baton --help lists the commands',
    );
  });
});
