import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ErrorCode } from '@baton/core';
import type { ActorRecord, FailingMessage } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from './createTable.ts';
import { DynamoStore } from './DynamoStore.ts';
import { listFailingActors } from './listFailingActors.ts';
import { listHeldActors } from './listHeldActors.ts';
import { listPausedActors } from './listPausedActors.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-paused-${randomUUID().slice(0, 8)}`;
const store = new DynamoStore({ client: dynamodb, tableName });

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

function record(id: string, paused?: ActorRecord['paused'], state: unknown = {}): ActorRecord {
  return {
    id,
    ver: 1,
    state,
    inboxOffset: '1',
    marks: {},
    sentSeq: 0,
    ...(paused ? { paused } : {}),
  };
}

describe('listHeldActors, listPausedActors and listFailingActors', () => {
  it('finds the paused actors, with who paused them, and says when it stopped short of the table', async () => {
    const idle = { at: 1_000, by: 'ops' };
    for (const r of [
      record('a/live'),
      record('a/idle', idle),
      record('b/held', { at: 2, by: 'x' }),
    ]) {
      await store.commit({ expectedVer: 0, record: r, outbox: [], idempotency: [] });
    }
    const all = await listPausedActors(dynamodb, tableName, { maxItems: 100 });
    expect(all.complete).toBe(true);
    expect([...all.actors].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([
      { id: 'a/idle', ...idle },
      { id: 'b/held', at: 2, by: 'x' },
    ]);

    const bounded = await listPausedActors(dynamodb, tableName, { maxItems: 1 });
    expect(bounded.complete).toBe(false);
    expect(bounded.actors.length).toBeLessThanOrEqual(1);
  });

  it('finds in the same scan the workflow instances their code left paused, by their state', async () => {
    const table = `baton-paused-wf-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, table);
    const wfStore = new DynamoStore({ client: dynamodb, tableName: table });
    const paused = (version: string) => ({
      status: 'paused',
      journal: [{ seq: 0, kind: 'step', name: 's', state: 'done', value: { status: 'running' } }],
      paused: { error: { code: 'NON_DETERMINISTIC', message: 'does not replay' }, version },
    });
    const threw = {
      status: 'paused',
      journal: [],
      paused: {
        error: { code: 'RETRYABLE', message: 'threw TypeError', details: { reason: 'RUN_THREW' } },
        version: '4',
      },
    };
    const ops = { at: 7, by: 'ops' };
    for (const r of [
      record('wf-ship/left', undefined, paused('3')),
      record('wf-ship/threw', undefined, threw),
      // An operator's pause of an instance's actor: an actor paused, whatever its status.
      record('wf-ship/held', ops, { status: 'waiting', journal: [] }),
      // The paused status nested in a running instance's state, and an actor's state that is
      // no workflow's: neither is a paused instance.
      record('wf-ship/nested', undefined, { status: 'running', output: { status: 'paused' } }),
      record('tally/lookalike', undefined, { status: 'paused' }),
    ]) {
      await wfStore.commit({ expectedVer: 0, record: r, outbox: [], idempotency: [] });
    }
    try {
      const found = await listPausedActors(dynamodb, table, { maxItems: 100 });
      // In table order, which the keys' hashes decide: read in the ids' order here.
      const workflows = [...found.workflows].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect({ ...found, workflows }).toEqual({
        actors: [{ id: 'wf-ship/held', ...ops }],
        workflows: [
          {
            id: 'wf-ship/left',
            workflow: 'ship',
            instance: 'left',
            version: '3',
            error: 'does not replay',
            threw: false,
          },
          {
            id: 'wf-ship/threw',
            workflow: 'ship',
            instance: 'threw',
            version: '4',
            error: 'threw TypeError',
            threw: true,
          },
        ],
        complete: true,
      });
      const bounded = await listPausedActors(dynamodb, table, { maxItems: 1 });
      expect(bounded.complete).toBe(false);
      expect(bounded.actors.length + bounded.workflows.length).toBeLessThanOrEqual(1);
    } finally {
      await dynamodb.send(new DeleteTableCommand({ TableName: table }));
    }
  });

  it('finds in the same scan the actors stuck on a failing message, which listPausedActors leaves out', async () => {
    const table = `baton-failing-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, table);
    const tableStore = new DynamoStore({ client: dynamodb, tableName: table });
    const failing: FailingMessage = {
      id: 'm-1',
      at: '7',
      attempts: 4,
      since: 1_000,
      handler: 'add',
      error: { code: ErrorCode.RETRYABLE, message: 'the ledger is down' },
      ended: { at: 2_000, by: 'ops' },
    };
    const held = { at: 3, by: 'ops' };
    for (const r of [
      { ...record('c/stuck'), failing },
      { ...record('c/both', held), failing: { id: 'm-2', at: '9', attempts: 1 } },
      record('c/held', held),
      record('c/fine'),
    ]) {
      await tableStore.commit({ expectedVer: 0, record: r, outbox: [], idempotency: [] });
    }
    try {
      const found = await listHeldActors(dynamodb, table, { maxItems: 100 });
      const byId = <T extends { id: string }>(list: readonly T[]) =>
        [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(byId(found.failing)).toEqual([
        { id: 'c/both', failing: { id: 'm-2', at: '9', attempts: 1 } },
        { id: 'c/stuck', failing },
      ]);
      expect(byId(found.actors)).toEqual([
        { id: 'c/both', ...held },
        { id: 'c/held', ...held },
      ]);
      expect(found.complete).toBe(true);
      const { failing: _, ...paused } = found;
      expect(await listPausedActors(dynamodb, table, { maxItems: 100 })).toEqual(paused);
      expect(await listFailingActors(dynamodb, table, { maxItems: 100 })).toEqual({
        actors: found.failing,
        complete: true,
      });
      const bounded = await listHeldActors(dynamodb, table, { maxItems: 1 });
      expect(bounded.complete).toBe(false);
      expect(bounded.failing.length + bounded.actors.length).toBeLessThanOrEqual(2);
    } finally {
      await dynamodb.send(new DeleteTableCommand({ TableName: table }));
    }
  });
});
