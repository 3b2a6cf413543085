import { redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import { inspectorFollowUp } from './inspectorFollowUp.ts';

const embedded = inspectorFollowUp('embedded');
const localAws = inspectorFollowUp('local-aws');

describe('the next step a refusal names under baton dev', () => {
  it("names the inspector's buttons and routes for a purge and a redrive, with force too", () => {
    const [actor, message] = ['cart/bob', 'ingress:["cart/bob","k-1"]'];
    expect(embedded`dead-letters purge ${actor} ${message}`).toBe(
      'the purge button on that dead letter in the inspector, or POST /_baton/purge on its port',
    );
    expect(embedded`dead-letters redrive ${actor} ${message}`).toBe(
      'the redrive button on that dead letter in the inspector, or POST /_baton/redrive on its port',
    );
    expect(localAws`dead-letters redrive ${actor} ${message} --force`).toBe(
      'the redrive button on that dead letter in the inspector, clicked again when it offers to redrive anyway, or POST /_baton/redrive on its port with "force": true',
    );
    expect(embedded`dead-letters list`).toBe("the inspector's dead letters");
    expect(embedded`actors get ${actor}`).toBe(
      "cart/bob's row in the inspector's actors (its history)",
    );
  });

  it('names any other command with --local, which the embedded backend cannot take', () => {
    expect(localAws`actors resume ${"cart/it's"}`).toBe(
      "baton actors resume 'cart/it'\\''s' --local <baton dev's address>",
    );
    expect(embedded`actors end-failing ${'cart/bob'} ${'m-1'}`).toBe(
      "baton actors end-failing cart/bob m-1 --local <baton dev's address>, with baton dev --backend local-aws (the embedded backend's data is its app process's alone)",
    );
  });

  it('is what a refused redrive says instead of the baton commands', async () => {
    const letter = {
      actorId: 'cart/bob',
      messageId: 'cart/alice:3',
      at: 1,
      attempts: 5,
      error: { code: 'RETRYABLE', message: 'boom' },
      redrivable: true,
      envelope: {
        id: 'cart/alice:3',
        from: 'cart/alice',
        seq: 3,
        to: 'cart/bob',
        name: 'add',
        payload: {},
        sentAt: 1,
        ask: 'a-1',
      },
    };
    const store = { readDeadLetter: async () => letter } as never;
    const refused = redriveDeadLetter(store, {} as never, 'cart/bob', 'cart/alice:3', {
      followUp: embedded,
    });
    await expect(refused).rejects.toThrow(
      /purge it \(the purge button on that dead letter in the inspector, or POST \/_baton\/purge on its port\); if you know it must be applied still, redrive it with force \(the redrive button on that dead letter in the inspector, clicked again/,
    );
    await expect(refused).rejects.not.toThrow(/baton dead-letters/);
  });
});
