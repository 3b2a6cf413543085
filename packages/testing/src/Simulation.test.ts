import { actor, callerOf, ErrorCode } from '@baton/core';
import { decodeEnvelope, type QueueMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Faults, noFaults } from './faults.ts';
import type { SimPorts } from './SimProcess.ts';
import { Simulation, SimulationError, type SimulationOptions } from './Simulation.ts';

let sideEffects = 0;

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        sideEffects++; // direct I/O in a handler: at-least-once, unlike the state
        ctx.state.count += by;
      },
    },
    forward: {
      payload: z.object({ to: z.string() }),
      // A block body: an expression body returning ctx.send(Counter…) would make Counter's
      // type depend on itself.
      handle: (ctx, { to }) => {
        ctx.send(Counter.ref(to), 'add', { by: 1 });
      },
    },
    loop: {
      payload: z.object({}),
      // Sends itself the next one: never quiet, whatever the engine does with failing messages.
      handle: (ctx) => {
        ctx.send(Counter.ref(ctx.self.key), 'loop', {});
      },
    },
  },
});

async function runCounters(
  seed: number,
  faults: Partial<Faults> = {},
  options: Partial<SimulationOptions> = {},
) {
  const sim = new Simulation({ actors: [Counter], seed, faults, ...options });
  for (let i = 0; i < 20; i++) sim.send(Counter.ref(`c${i % 3}`), 'add', { by: 1 });
  for (let i = 0; i < 10; i++) sim.send(Counter.ref(`c${i % 3}`), 'forward', { to: 'total' });
  await sim.run();
  return sim;
}

async function counts(sim: Simulation): Promise<number[]> {
  const states = await Promise.all(
    ['c0', 'c1', 'c2', 'total'].map((k) => sim.state(Counter.ref(k))),
  );
  return states.map((s) => s.count);
}

/**
 * A mutant of the worker: it acknowledges its inbox messages when it starts draining their
 * turn's outbox, before the outbox is sent (DESIGN step 6 says after). Built from the ports
 * alone; exact for the counter, whose handlers never fail (every received message is done).
 */
function ackBeforeDrain(ports: SimPorts): SimPorts {
  const receipts = new Map<string, string[]>();
  const queue = new Proxy(ports.queue, {
    get: (target, prop) => {
      if (prop === 'receive') {
        return async (...args: Parameters<SimPorts['queue']['receive']>) => {
          const received = await target.receive(...args);
          receipts.clear();
          for (const m of received)
            receipts.set(m.group, [...(receipts.get(m.group) ?? []), m.receipt]);
          return received;
        };
      }
      if (prop === 'send') {
        // A drain sends what its actor committed: ack that actor's messages first.
        return async (messages: readonly QueueMessage[]) => {
          for (const message of messages) {
            const sender = decodeEnvelope(message.body)?.from ?? '';
            const mine = receipts.get(sender);
            receipts.delete(sender);
            if (mine) await target.ack(mine);
          }
          return target.send(messages);
        };
      }
      return Reflect.get(target, prop);
    },
  });
  return { store: ports.store, queue };
}

describe('Simulation', () => {
  it("sends as a user with { caller }: the handler's authorize decides at once, and the handler sees the caller", async () => {
    const Note = actor({
      name: 'note',
      state: z.object({ text: z.string(), by: z.string() }),
      initial: () => ({ text: '', by: '' }),
      handlers: {
        write: {
          public: true,
          authorize: (caller, note) => caller.kind === 'user' && caller.identity === note.key,
          payload: z.object({ text: z.string() }),
          handle: (ctx, { text }) => {
            ctx.state.text = text;
            ctx.state.by =
              ctx.caller.kind === 'user' ? String(ctx.caller.identity) : ctx.caller.kind;
          },
        },
        stamp: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.by = ctx.caller.kind;
          },
        },
      },
    });
    const sim = new Simulation({ actors: [Note], seed: 3 });
    const key = sim.send(Note.ref('ann'), 'write', { text: 'hi' }, { caller: callerOf('ann') });
    expect(() =>
      sim.send(Note.ref('ann'), 'write', { text: 'not yours' }, { caller: callerOf('bob') }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.FORBIDDEN }));
    expect(() => sim.send(Note.ref('ann'), 'stamp', {}, { caller: callerOf('ann') })).toThrow(
      expect.objectContaining({ code: ErrorCode.FORBIDDEN }),
    );
    await sim.run();
    expect(await sim.state(Note.ref('ann'))).toEqual({ text: 'hi', by: 'ann' });
    expect(await sim.outcome(key)).toEqual({ ok: true });
    // Without a caller, as trusted code: any handler.
    sim.send(Note.ref('ann'), 'stamp', {});
    await sim.run();
    expect((await sim.state(Note.ref('ann'))).by).toBe('system');
  });

  it('replays the same schedule step for step from the same seed', async () => {
    const a = await runCounters(42, { crash: 0.1 });
    const b = await runCounters(42, { crash: 0.1 });
    const c = await runCounters(43, { crash: 0.1 });
    expect(a.trace).toEqual(b.trace);
    expect(a.stats).toEqual(b.stats);
    expect(c.trace).not.toEqual(a.trace);
  });

  it('applies every message to the state exactly once while crashes rerun handlers', async () => {
    let rerun = false;
    for (let seed = 1; seed <= 30; seed++) {
      sideEffects = 0;
      // Partial queue sends are left to the next test, so that this one is about crashes.
      const sim = await runCounters(seed, { crash: 0.2, crashBudget: 50, partialSend: 0 });
      expect(await counts(sim)).toEqual([7, 7, 6, 10]);
      expect(sideEffects).toBeGreaterThanOrEqual(30);
      if (sideEffects > 30 && sim.stats.crashes > 0) rerun = true;
    }
    // The harness really crashed turns after their handlers ran: the side effect shows it.
    expect(rerun).toBe(true);
  });

  it('applies every message exactly once when queue sends fail part-way', async () => {
    // SQS reports a SendMessageBatch per entry: a later message can go in while an earlier one
    // fails and is sent again by the next drain. Each counter forwards to two targets in turn,
    // so its drains hold several messages for each target.
    let partialSends = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const sim = new Simulation({ actors: [Counter], seed, faults: { partialSend: 0.5 } });
      for (let i = 0; i < 12; i++) {
        sim.send(Counter.ref(`c${i % 2}`), 'forward', { to: i % 4 < 2 ? 'x' : 'y' });
      }
      await sim.run();
      partialSends += sim.stats.partialSends;
      const [x, y] = await Promise.all(['x', 'y'].map((k) => sim.state(Counter.ref(k))));
      expect([x?.count, y?.count], `seed ${seed}`).toEqual([6, 6]);
    }
    expect(partialSends).toBeGreaterThan(0);
  });

  it('runs without faults when told to, and injects them by default', async () => {
    const quiet = await runCounters(7, noFaults);
    const { crashes, restarts, compactionRestarts, timeouts, longPauses, retentionJumps } =
      quiet.stats;
    const { duplicateIngress, redeliveries, partialSends, reorders, sweeps } = quiet.stats;
    expect(crashes + restarts + compactionRestarts + timeouts + longPauses + retentionJumps).toBe(
      0,
    );
    expect(duplicateIngress + redeliveries + partialSends + reorders + sweeps).toBe(0);
    let injected = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const sim = await runCounters(seed);
      injected += sim.stats.crashes + sim.stats.redeliveries + sim.stats.duplicateIngress;
    }
    expect(injected).toBeGreaterThan(0);
  });

  it('races the sweeper, splits batches, compacts the journal and jumps past the mark retention', async () => {
    const total = { sweeps: 0, sweeperRaced: 0, batchSplits: 0, compactions: 0, retentionJumps: 0 };
    for (let seed = 1; seed <= 20; seed++) {
      const sim = await runCounters(
        seed,
        { sweep: 0.1, compaction: 0.02, retentionJump: 0.5, partialSend: 0 },
        { limits: { maxTransactionItems: 3 }, batchSize: 10, processes: 1 },
      );
      expect(await counts(sim), `seed ${seed}`).toEqual([7, 7, 6, 10]);
      for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += sim.stats[key];
    }
    expect(total.sweeps).toBeGreaterThan(0);
    expect(total.sweeperRaced).toBeGreaterThan(0);
    expect(total.batchSplits).toBeGreaterThan(0);
    expect(total.compactions).toBeGreaterThan(0);
    expect(total.retentionJumps).toBeGreaterThan(0);
  });

  it('fails a run whose sweeper finds an outbox that only the sweeper would ever send', async () => {
    // With ack before drain, the money still arrives (the sweeper sends it), so only this
    // check notices: an outbox item outlived every inbox message whose turn committed it.
    const caught: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const faults = { crash: 0.1, partialSend: 0 };
      await runCounters(seed, faults); // the real worker: no orphan, whatever the schedule
      const error = await runCounters(seed, faults, { wrapPorts: ackBeforeDrain }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (error === undefined) continue;
      expect(error).toBeInstanceOf(SimulationError);
      expect((error as Error).message).toMatch(
        /orphaned outbox: the sweeper found item \d+ of counter\/c\d/,
      );
      caught.push(seed);
    }
    expect(caught.length).toBeGreaterThan(0);
  });

  it('fails a run that never goes quiet, naming the seed to replay', async () => {
    const sim = new Simulation({ actors: [Counter], seed: 9, maxSteps: 500 });
    sim.send(Counter.ref('x'), 'loop', {});
    const error = await sim.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimulationError);
    expect((error as SimulationError).message).toMatch(/not quiet after 500 steps[\s\S]*seed 9/);
  });

  it('rejects a send the actor cannot take before running anything', () => {
    const sim = new Simulation({ actors: [Counter], seed: 1 });
    // @ts-expect-error wrong payload type
    expect(() => sim.send(Counter.ref('x'), 'add', { by: 'one' })).toThrow(/payload\.by/);
  });
});
