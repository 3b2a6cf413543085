import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { textFrames } from './textFrames.ts';

/** ws's own frame parser, as a client runs it (unmasked frames from a server). */
interface Receiver {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  write(chunk: Buffer): boolean;
}
const { Receiver } = ws as unknown as { Receiver: new (options: object) => Receiver };

function read(bytes: Buffer): string[] {
  const receiver = new Receiver({ isServer: false, maxPayload: 0 });
  const texts: string[] = [];
  receiver.on('message', (data, isBinary) => {
    expect(isBinary).toBe(false);
    texts.push(data.toString());
  });
  receiver.on('error', (error) => {
    throw error;
  });
  receiver.write(bytes);
  return texts;
}

describe('textFrames', () => {
  it('writes frames a WebSocket client reads back, at each length encoding', () => {
    const texts = [
      '',
      '{"v":1}',
      'x'.repeat(125), // the longest 7-bit length
      'y'.repeat(126), // the shortest 16-bit one
      'z'.repeat(65_535),
      'w'.repeat(65_536), // the shortest 64-bit one
      'é ✓ 😀 \u2028', // lengths count UTF-8 bytes, not characters
    ];
    const bytes = textFrames(texts);
    expect(bytes.length).toBe(
      texts.reduce((sum, text) => {
        const n = Buffer.byteLength(text);
        return sum + n + (n < 126 ? 2 : n < 65_536 ? 4 : 10);
      }, 0),
    );
    expect(read(bytes)).toEqual(texts);
  });

  it('starts each frame with FIN and the text opcode, unmasked', () => {
    const bytes = textFrames(['ab']);
    expect([...bytes]).toEqual([0x81, 2, 0x61, 0x62]);
  });
});
