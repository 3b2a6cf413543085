import { MAX_FRAME_BYTES } from '@baton/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

describe('results over 128 KiB', () => {
  it('go out as chunk frames that the client reassembles with a ChunkAssembler', async () => {
    const a = await t.open({ autoAck: true });
    const size = 300_000;
    a.send({ v: 1, type: 'subscribe', id: 's1', query: 'padded', args: { account: 'c1', size } });
    const result = await a.push('s1');
    expect(result).toMatchObject({ type: 'result', version: 1, value: { balance: 0 } });
    expect(a.values.get('s1')).toEqual({ balance: 0, padding: 'x'.repeat(size) });
    const chunks = a.raw.map((text) => JSON.parse(text)).filter((f) => f.type === 'chunk');
    expect(chunks.length).toBe(3);
    for (const text of a.raw) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_FRAME_BYTES);

    // A change to the small part travels as a small patch, in one frame.
    const before = a.raw.length;
    await t.deposit(a, 'c1', 2);
    expect(a.values.get('s1')).toMatchObject({ balance: 2 });
    expect(a.raw.slice(before).every((text) => JSON.parse(text).type !== 'chunk')).toBe(true);
  });
});
