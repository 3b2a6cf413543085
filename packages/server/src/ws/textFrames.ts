/**
 * WebSocket text frames (RFC 6455 §5.2) as a server sends them — final, unmasked, uncompressed —
 * for `texts`, in one buffer: a connection's frames of one turn leave in one write instead of
 * two buffered chunks per frame (a fan-out gives a connection one frame per subscription).
 * Only for a socket without permessage-deflate.
 *
 * @example
 * rawSocket.write(textFrames(['{"v":1,"type":"pong","t":1}']));
 */
export function textFrames(texts: readonly string[]): Buffer {
  const lengths = new Array<number>(texts.length);
  let size = 0;
  for (let i = 0; i < texts.length; i++) {
    const bytes = Buffer.byteLength(texts[i]!);
    lengths[i] = bytes;
    size += headerSize(bytes) + bytes;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const bytes = lengths[i]!;
    out[at++] = FIN_TEXT;
    if (bytes < 126) {
      out[at++] = bytes;
    } else if (bytes < 65_536) {
      out[at++] = 126;
      out.writeUInt16BE(bytes, at);
      at += 2;
    } else {
      out[at++] = 127;
      out.writeUInt32BE(Math.floor(bytes / 2 ** 32), at);
      out.writeUInt32BE(bytes % 2 ** 32, at + 4);
      at += 8;
    }
    at += out.write(texts[i]!, at);
  }
  return out;
}

/** FIN set, opcode 1 (text). */
const FIN_TEXT = 0x81;

function headerSize(bytes: number): number {
  return bytes < 126 ? 2 : bytes < 65_536 ? 4 : 10;
}
