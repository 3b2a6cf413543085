import { describe, expect, it } from 'vitest';
import type { OverflowKey, OverflowMark } from '../adapter/marks.ts';
import type { Store } from '../adapter/ports.ts';
import type { JournalEntry, WorkflowState } from '../workflow/journal.ts';
import { readStoredHistory } from './storedHistory.ts';

const entry = (seq: number): JournalEntry => ({
  seq,
  kind: 'step',
  name: `s${seq}`,
  state: 'done',
  at: seq,
});

/** A store holding the pages given, by id, recording what it is asked for. */
function storeWith(pages: Record<string, unknown>) {
  const asked: OverflowKey[][] = [];
  const store = {
    readOverflow: async (_actorId: string, keys: readonly OverflowKey[]) => {
      asked.push([...keys]);
      return keys.flatMap((key): OverflowMark[] =>
        key.peer in pages
          ? [{ kind: 'page', peer: key.peer, mark: pages[key.peer], expiresAt: 0 }]
          : [],
      );
    },
  } as unknown as Store;
  return { store, asked };
}

const state = (extra: Pick<WorkflowState, 'sealed' | 'pinned'>): WorkflowState => ({
  status: 'running',
  runId: 'r1',
  journal: [entry(6), entry(7)],
  completed: 0,
  signals: [],
  notify: [],
  ...extra,
});

describe('readStoredHistory', () => {
  it('reads no page of an instance whose record holds its whole history', async () => {
    const { store, asked } = storeWith({});
    const history = await readStoredHistory(store, 'wf/a', state({ pinned: [entry(5)] }));
    expect(history.map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(asked).toEqual([]);
  });

  it("puts the pages' entries and the pinned ones in number order, before the journal", async () => {
    const { store, asked } = storeWith({ 'wf:r1:0': [entry(1), entry(3)], 'wf:r1:1': [entry(4)] });
    const sealed = state({ sealed: { entries: 6, pages: 2 }, pinned: [entry(2), entry(5)] });
    const history = await readStoredHistory(store, 'wf/a', sealed);
    expect(history.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(asked).toEqual([
      [
        { kind: 'page', peer: 'wf:r1:0' },
        { kind: 'page', peer: 'wf:r1:1' },
      ],
    ]);
  });

  it('fails UNAVAILABLE, naming the page, when a page the record counts is not in the store', async () => {
    const { store } = storeWith({ 'wf:r1:0': [entry(1)], 'wf:r1:1': 'not a page' });
    const sealed = state({ sealed: { entries: 6, pages: 2 } });
    await expect(readStoredHistory(store, 'wf/a', sealed)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /^page wf:r1:1 of wf\/a's history is not in the store \(its record counts 2\)/,
      ),
      details: { actorId: 'wf/a', page: 'wf:r1:1' },
    });
  });
});
