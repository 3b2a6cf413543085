import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type GatedStream, PushGate } from './PushGate.ts';

/** A gate over a socket whose unread bytes the test sets, and streams that count releases. */
function setup(maxUnreadBytes = 100) {
  const socket = new EventEmitter();
  let unread = 0;
  let measured = 0;
  const gate = new PushGate(
    () => {
      measured++;
      return unread;
    },
    maxUnreadBytes,
    socket,
  );
  const released: string[] = [];
  const stream = (name: string, write = 0): GatedStream => ({
    release: () => {
      released.push(name);
      unread += write;
    },
  });
  return {
    gate,
    socket,
    released,
    stream,
    setUnread: (bytes: number) => {
      unread = bytes;
    },
    measured: () => measured,
  };
}

describe('PushGate', () => {
  it('is open up to maxUnreadBytes unread, and shut past it', () => {
    const t = setup(100);
    t.setUnread(100);
    expect(t.gate.open()).toBe(true);
    t.setUnread(101);
    expect(t.gate.open()).toBe(false);
  });

  it('never shuts over a transport that cannot say it drained, or none', () => {
    expect(new PushGate(() => 1e9, 100, undefined).open()).toBe(true);
    expect(new PushGate(() => 1e9, 100, {}).open()).toBe(true);
  });

  it("releases the waiting streams in order on 'drain', listening once however many wait", () => {
    const t = setup(100);
    t.setUnread(500);
    t.gate.wait(t.stream('a'));
    t.gate.wait(t.stream('b'));
    expect(t.socket.listenerCount('drain')).toBe(1);
    t.setUnread(0);
    t.socket.emit('drain');
    expect(t.released).toEqual(['a', 'b']);
    expect(t.socket.listenerCount('drain')).toBe(0);
  });

  it("stops partway when a release fills the socket again, and goes on at the next 'drain'", () => {
    const t = setup(100);
    t.setUnread(500);
    t.gate.wait(t.stream('a', 300));
    t.gate.wait(t.stream('b'));
    t.setUnread(0);
    t.socket.emit('drain');
    expect(t.released).toEqual(['a']);
    expect(t.socket.listenerCount('drain')).toBe(1);
    t.setUnread(0);
    t.socket.emit('drain');
    expect(t.released).toEqual(['a', 'b']);
  });

  it('written() releases at once when the socket took the writes, and does not measure for nothing', () => {
    const t = setup(100);
    t.gate.written();
    expect(t.measured()).toBe(0);
    t.setUnread(500);
    t.gate.wait(t.stream('a'));
    t.gate.written();
    expect(t.released).toEqual([]);
    t.setUnread(0);
    t.gate.written();
    expect(t.released).toEqual(['a']);
  });

  it('forgets the waiting streams once cleared', () => {
    const t = setup(100);
    t.setUnread(500);
    t.gate.wait(t.stream('a'));
    t.gate.clear();
    t.setUnread(0);
    t.socket.emit('drain');
    expect(t.released).toEqual([]);
  });
});
