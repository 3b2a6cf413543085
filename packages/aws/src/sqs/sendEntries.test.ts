import { queueMessageBytes } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { prepareEntry } from './sendEntries.ts';

/** What SQS counts of an entry: its body and each attribute's name, type and value, in UTF-8. */
function sentBytes(entry: ReturnType<typeof prepareEntry>['entry']): number {
  let bytes = Buffer.byteLength(entry.MessageBody ?? '', 'utf8');
  for (const [name, value] of Object.entries(entry.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name + (value.DataType ?? '') + (value.StringValue ?? ''), 'utf8');
  }
  return bytes;
}

describe('the size of a message as SQS counts it', () => {
  it.each([
    ['plain ids and body', { group: 'a/b', dedupeId: 'm1', body: '{"x":"y"}' }],
    [
      'characters SQS refuses, escaped',
      { group: 'a/b', dedupeId: 'm1', body: '"\uffff\u0001\ud800é"' },
    ],
    ['a group id that is not ASCII', { group: 'a/zoë', dedupeId: 'm1', body: '{}' }],
    ['a dedupe id longer than 128', { group: 'a/b', dedupeId: 'd'.repeat(129), body: '{}' }],
    ['ids with characters SQS refuses', { group: 'a/\uffff', dedupeId: 'x\u0001', body: '{}' }],
  ])('is what the adapter sends and the embedded queue measures: %s', (_, message) => {
    const { entry, bytes } = prepareEntry(message, 0, 1_000_000);
    expect(bytes).toBe(sentBytes(entry));
    expect(queueMessageBytes(message)).toBe(bytes);
  });
});
