/**
 * A bench step's parts in processes of their own. A process here may hold at most 20,000 file
 * descriptors, so 10,000 WebSocket connections cannot have both ends in one process: a part (a
 * gateway and its handlers, or a crowd of clients) runs in a child process, and the step calls
 * its methods over IPC. The part's module calls {@link serve} with its methods; the step starts
 * it with {@link forkPart} and imports only its types.
 *
 * @example
 * // clients.ts: serve({ open: async (url: string) => … });
 * const clients = forkPart<typeof methods>(new URL('./clients.ts', import.meta.url));
 * await clients.call('open', url);
 * await clients.stop();
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A part's methods: arguments and results are what IPC carries (structured clones). */
export type Methods = Record<string, (...args: never[]) => unknown>;

/** A part running in a child process. */
export interface Part<M extends Methods> {
  /** Calls `method` in the child; rejects with the child's error message. */
  call<K extends keyof M & string>(
    method: K,
    ...args: Parameters<M[K]>
  ): Promise<Awaited<ReturnType<M[K]>>>;
  /** Ends the child: killed, as a part holds nothing that needs closing. */
  stop(): Promise<void>;
}

interface Call {
  readonly id: number;
  readonly method: string;
  readonly args: unknown[];
}

type Answer =
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: string };

/**
 * Starts the module at `entry` (which calls `serve`) in a child process: through tsx for a `.ts`
 * module, and in plain Node for JavaScript (a bundle), which then carries no loader's cost.
 */
export function forkPart<M extends Methods>(entry: URL): Part<M> {
  const child: ChildProcess = fork(fileURLToPath(entry), [], {
    execArgv: entry.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [],
    // Typed arrays (a stream record's binary attributes) and undefined pass as they are.
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  let exited: Error | undefined;
  child.on('message', (answer: Answer) => {
    const call = pending.get(answer.id);
    pending.delete(answer.id);
    if ('error' in answer) call?.reject(new Error(answer.error));
    else call?.resolve(answer.result);
  });
  const ended = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exited = new Error(`the part ${entry.pathname} exited (${signal ?? code})`);
      for (const call of pending.values()) call.reject(exited);
      pending.clear();
      resolve();
    });
  });
  return {
    call(method, ...args) {
      if (exited) return Promise.reject(exited);
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, method, args } satisfies Call);
      });
    },
    async stop() {
      if (!exited) child.kill();
      await ended;
    },
  };
}

/** Answers the parent's calls with `methods` (in the part's module, run by {@link forkPart}). */
export function serve(methods: Methods): void {
  // A part outlives no step: when the parent goes, so does it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async ({ id, method, args }: Call) => {
    try {
      const fn = methods[method];
      if (!fn) throw new Error(`no method ${method}`);
      process.send!({
        id,
        result: await (fn as (...values: unknown[]) => unknown)(...args),
      } satisfies Answer);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.send!({ id, error: message } satisfies Answer);
    }
  });
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function inPool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** The time in ms, read alike by every process on the machine: a part's moments compare with the step's. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}
