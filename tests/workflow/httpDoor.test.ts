/**
 * A public workflow through the HTTP ingress, the door an outside system uses: its `authorize`
 * decides each start and signal per caller there too (403 and nothing enqueued for the others),
 * a start of the same id sent before the first is applied changes nothing, and the run sees the caller the
 * ingress signed in as `ctx.caller`. A start of an id the workflow's `ref()` refuses, sent to the
 * actor's id, is refused in its turn.
 */
import { describe, expect, it } from 'vitest';
import { Greeter, greeterIngress } from './greeter.ts';

function setup() {
  const { h, ingress } = greeterIngress();
  let keys = 0;
  const send = async (user: string, to: string, name: string, payload: unknown) => {
    const response = await ingress({
      method: 'POST',
      path: '/send',
      headers: { 'x-user': user, 'content-type': 'application/json' },
      body: JSON.stringify({ to, name, payload, idempotencyKey: `k-${++keys}` }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  return { h, send };
}

describe('a public workflow through the HTTP ingress', () => {
  it('lets its authorize decide each start and signal, and the run sees the caller it signed in', async () => {
    const { h, send } = setup();
    const ref = Greeter.ref('alice:1');

    const refused = await send('bob', ref.id, 'start', { input: { greeting: 'hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN' });
    expect(await h.backend.queue.counts()).toMatchObject({ total: 0 });

    expect((await send('alice', ref.id, 'start', { input: { greeting: 'hi' } })).status).toBe(202);
    // The same id again before the first is applied: the door cannot tell, its turn refuses
    // it (see refusedAtEnd.test.ts), and the instance keeps its first input.
    expect((await send('alice', ref.id, 'start', { input: { greeting: 'yo' } })).status).toBe(202);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });

    expect((await send('bob', ref.id, 'signal', { name: 'go', payload: null })).status).toBe(403);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });

    expect((await send('alice', ref.id, 'signal', { name: 'go', payload: null })).status).toBe(202);
    await h.runAll();
    // Its first input, and the caller the ingress signed in.
    expect(await h.client.result(ref)).toBe('hi, alice');
  });

  it("refuses in its turn a start of an id its ref() refuses, sent to the actor's id, so no instance runs that no ref can name", async () => {
    const { h, send } = setup();
    // `wf-greeter/wf-greeter/al:1`: the instance id `wf-greeter/al:1`, which Greeter.ref refuses
    // (it reads as the actor id of `al:1`). The door takes the actor's id as it is.
    const id = 'wf-greeter/al:1';
    expect(() => Greeter.ref(id)).toThrow(/that is the actor id of instance "al:1"/);
    const sent = await send('wf-greeter/al', `wf-greeter/${id}`, 'start', {
      input: { greeting: 'hi' },
    });
    expect(sent.status).toBe(202);
    await h.runAll();
    expect(await h.client.outcome(sent.body.messageId)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REF', message: expect.stringContaining('pass the instance id') },
    });
    // Its record keeps the refusal's outcome, the instance never begun.
    expect((await h.record(`wf-greeter/${id}`))?.state).toMatchObject({
      status: 'new',
      journal: [],
    });
  });
});
