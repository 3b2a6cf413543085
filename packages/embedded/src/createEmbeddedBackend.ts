import { join } from 'node:path';
import type { ChangeFeed, Clock, StoreLimits } from '@baton/core/adapter';
import { invalidArgument, systemClock } from '@baton/core/adapter';
import { checkDuration, checkInteger, checkRetention } from './checkOptions.ts';
import { compactJournal } from './compactJournal.ts';
import { EmbeddedQueue } from './EmbeddedQueue.ts';
import { EmbeddedStore } from './EmbeddedStore.ts';
import { FileJournal } from './FileJournal.ts';
import type { Journal, JournalEntry } from './Journal.ts';
import { resolveLimits } from './storeLimits.ts';

/** Queue settings of {@link createEmbeddedBackend}. */
export interface EmbeddedQueueSettings {
  /** Used when `receive` is given none. Default: 30 s. */
  readonly visibilityTimeoutMs?: number;
  /** Receives before a message moves to the dead-letter queue. Default: 5. */
  readonly maxReceives?: number;
  /** Dedupe window on `dedupeId`. Default: 5 min. */
  readonly dedupeWindowMs?: number;
  /** How long a message stays in the queue (SQS's retention): 60 s to 14 days. Default: 14 days. */
  readonly retentionMs?: number;
  /** The inbox's name in the journal, e.g. for a queue that replaced another. Default: `'inbox'`. */
  readonly name?: string;
  /** The inbox's `Queue.identity`, e.g. to simulate a replaced queue. Default: none. */
  readonly identity?: string;
}

/** Options of {@link createEmbeddedBackend}. */
export interface EmbeddedBackendOptions {
  /** Keep a journal in this directory (`journal.jsonl`) and replay it on start. */
  readonly dataDir?: string;
  /** Or keep the journal here, e.g. a {@link MemoryJournal} shared by simulated restarts. */
  readonly journal?: Journal;
  /** Virtual time for simulations. Default: the system clock. */
  readonly clock?: Clock;
  /** Transaction limits; the ones not given are DynamoDB's. */
  readonly limits?: Partial<StoreLimits>;
  readonly queue?: EmbeddedQueueSettings;
  /**
   * Compact the journal on start when it has more entries than this and the snapshot halves it;
   * 0 compacts on every start. Default: 10,000.
   */
  readonly compactAfterEntries?: number;
  /** Called when a change or outcome listener throws. Default: console.error. */
  readonly onListenerError?: (error: unknown) => void;
}

/** The in-process backend: the ports the turn engine needs, plus inspection helpers. */
export interface EmbeddedBackend {
  readonly store: EmbeddedStore;
  /** The inbox queue (named `'inbox'` in the journal unless `queue.name` says otherwise). */
  readonly queue: EmbeddedQueue;
  /** Committed actor records: the store itself. */
  readonly feed: ChangeFeed;
  /** The journal in use, if any. */
  readonly journal: Journal | undefined;
  /** Another queue on the same journal and clock, e.g. for timers. `name` must be unique. */
  createQueue(name: string, settings?: EmbeddedQueueSettings): EmbeddedQueue;
  /** Closes the store, the queues and the journal (its file and lock). */
  close(): void;
}

/**
 * Creates the in-process backend. Without `dataDir` or `journal` everything lives in memory;
 * with one, every commit, outbox delete, send, ack and dead-letter move is journaled (and with
 * `dataDir`, fsynced) before it takes effect, and replayed on the next start.
 *
 * @example
 * const backend = createEmbeddedBackend({ dataDir: '.baton/data' });
 * backend.feed.subscribe((record) => console.log('committed', record.id, record.ver));
 * await backend.queue.send([{ group: 'account/alice', dedupeId: 'd1', body: '{}' }]);
 * backend.close();
 */
export function createEmbeddedBackend(options: EmbeddedBackendOptions = {}): EmbeddedBackend {
  checkOptions(options);
  const clock = options.clock ?? systemClock;
  const settings = options.queue ?? {};
  const dedupeWindowMs = settings.dedupeWindowMs ?? 5 * 60_000;
  const journal =
    options.journal ??
    (options.dataDir === undefined
      ? undefined
      : new FileJournal(join(options.dataDir, 'journal.jsonl')));
  try {
    let entries = journal?.replay() ?? [];
    if (journal) {
      entries = compactJournal(journal, entries, {
        threshold: options.compactAfterEntries ?? 10_000,
        clock,
        dedupeWindowMs,
      });
    }
    // Store and inbox replay the entries read above; queues created later read the journal.
    let cached: JournalEntry[] | undefined = entries;
    const view: Journal | undefined = journal && {
      append: (more) => journal.append(more),
      replay: () => cached ?? journal.replay(),
      replace: (next) => journal.replace(next),
      close: () => journal.close(),
    };
    const store = new EmbeddedStore({
      journal: view,
      clock,
      limits: options.limits,
      onListenerError: options.onListenerError,
    });
    const queues = new Map<string, EmbeddedQueue>();
    const createQueue = (name: string, more: EmbeddedQueueSettings = {}) => {
      if (queues.has(name)) {
        throw invalidArgument(`a queue named ${name} exists already: give each queue its own name`);
      }
      const queue = new EmbeddedQueue({ ...more, name, clock, journal: view });
      queues.set(name, queue);
      return queue;
    };
    const queue = createQueue(settings.name ?? 'inbox', settings);
    cached = undefined;
    return {
      store,
      queue,
      feed: store,
      journal,
      createQueue,
      close() {
        store.close();
        for (const q of queues.values()) q.close();
        journal?.close();
      },
    };
  } catch (error) {
    if (!options.journal) journal?.close();
    throw error;
  }
}

function checkOptions(options: EmbeddedBackendOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('createEmbeddedBackend takes an options object, or nothing');
  }
  if (options.dataDir !== undefined && options.journal !== undefined) {
    throw invalidArgument(
      'pass either dataDir (a file journal in that directory) or journal, not both',
    );
  }
  if (options.dataDir !== undefined && (typeof options.dataDir !== 'string' || !options.dataDir)) {
    throw invalidArgument(
      'dataDir must be a non-empty directory path; leave it out to keep data in memory',
    );
  }
  if (options.clock !== undefined && typeof options.clock?.now !== 'function') {
    throw invalidArgument('clock must be an object with a now() method returning epoch ms');
  }
  checkInteger('compactAfterEntries', options.compactAfterEntries, 0);
  resolveLimits(options.limits);
  checkDuration('queue.visibilityTimeoutMs', options.queue?.visibilityTimeoutMs);
  checkInteger('queue.maxReceives', options.queue?.maxReceives, 1);
  checkDuration('queue.dedupeWindowMs', options.queue?.dedupeWindowMs);
  checkRetention('queue.retentionMs', options.queue?.retentionMs);
}
