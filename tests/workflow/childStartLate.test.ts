/**
 * A child's start that came after its parent's cancel (the start was kept as a dead letter, then
 * redriven: the one way past the channel's order) does not start it: the child ends as its
 * parent's cancel said, so nothing runs for a parent that is gone. A start the parent did not
 * cancel (another run of the parent) still starts it.
 */
import { type AnyWorkflowDefinition, ErrorCode } from '@baton/core';
import { purgeDeadLetter, redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import { family } from './bookingFamily.ts';
import { type WorkflowHarness, workflowHarness } from './harness.ts';

/**
 * Starts parent `p`, whose start of its child reaches a worker of a release that does not know
 * the child yet (a rolling deploy): the start waits, then is kept as a dead letter.
 */
async function startKept(
  Parent: AnyWorkflowDefinition,
  Child: AnyWorkflowDefinition,
): Promise<WorkflowHarness> {
  const h = workflowHarness([Parent.actor, Child.actor]);
  await h.client.start(Parent, 'p', {});
  expect(await h.worker.poll()).toBe(1);
  h.deploy([Parent.actor]);
  await h.runAll();
  return h;
}

/** Redrives every dead letter the child's actor keeps, in the order they were kept. */
async function redriveAll(h: WorkflowHarness, actorId: string): Promise<string[]> {
  const letters = await h.backend.store.listDeadLetters(actorId);
  for (const letter of letters) {
    await redriveDeadLetter(h.backend.store, h.backend.queue, actorId, letter.messageId);
  }
  await h.runAll();
  return letters.map((letter) => letter.envelope.name);
}

describe("a child's start redriven after its parent's end", () => {
  it.each([
    ['cancelled', 'cancel', ErrorCode.CANCELLED],
    ['terminated', 'terminate', ErrorCode.CANCELLED],
  ] as const)('does not start the child: it ends %s', async (status, how, code) => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = await startKept(Parent, Child);
    const parent = Parent.ref('p');
    const child = Child.ref('c');
    expect((await h.backend.store.listDeadLetters(child.id)).map((l) => l.envelope.name)).toEqual([
      '_child',
    ]);

    // The next release knows the child; the parent ends before the start is redriven.
    h.deploy([Parent.actor, Child.actor]);
    await (how === 'cancel' ? h.client.cancel(parent) : h.client.terminate(parent));
    await h.runAll();
    expect(await h.client.workflowStatus(parent)).toMatchObject({ status });

    expect(await redriveAll(h, child.id)).toEqual(['_child']);
    expect(log).toEqual([]);
    expect(await h.client.workflowStatus(child)).toMatchObject({ status });
    await expect(h.client.result(child)).rejects.toMatchObject({
      code,
      message: expect.stringMatching(/before it started: its parent p ended/),
    });
  });

  it('starts the child for a later run of the parent', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = await startKept(Parent, Child);
    const parent = Parent.ref('p');
    h.deploy([Parent.actor, Child.actor]);
    await h.client.cancel(parent);
    await h.runAll();
    // The first run's start is purged, not redriven; the parent ends, and starts again.
    const child = Child.ref('c');
    const [letter] = await h.backend.store.listDeadLetters(child.id);
    await purgeDeadLetter(h.backend.store, child.id, letter!.messageId, { by: 'test' });
    await h.runAll({ expire: true });
    await h.client.start(Parent, 'p', {});
    await h.runAll({ until: h.clock.now() });
    expect(log).toEqual(['book']);
    expect(await h.client.workflowStatus(child)).toMatchObject({ status: 'waiting' });
  });
});
