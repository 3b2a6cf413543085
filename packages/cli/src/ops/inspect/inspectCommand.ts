import { BatonError, ErrorCode } from '@baton/core';
import { unansweredIn } from '../awsClients.ts';
import type { OpsContext } from '../OpsContext.ts';
import { startInspector } from './inspectServer.ts';

/** The port `baton inspect` serves on unless `--port` names another. */
const DEFAULT_PORT = 4390;

/**
 * `baton inspect [--port n] [--allow-actions]`: serves the inspector for the deployment on
 * 127.0.0.1 until Ctrl-C; read-only unless `--allow-actions`.
 */
export async function inspect(ctx: OpsContext): Promise<void> {
  const port = ctx.values.port === undefined ? DEFAULT_PORT : Number(ctx.values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      '--port takes a port number (0 for any free one)',
    );
  }
  const target = await ctx.target();
  const allowActions = ctx.values['allow-actions'] === true;
  // The page's actions send to the inbox, and its overview counts the inbox's messages: an
  // inbox URL that names no inbox is refused before it serves. Read-only, it serves while SQS
  // does not answer, as before: each page says what it could not read.
  if (allowActions) await ctx.inbox();
  else
    await ctx.checkNamedInbox().catch((error: unknown) => {
      if (!unansweredIn(error)) throw error;
    });
  let inspector: Awaited<ReturnType<typeof startInspector>>;
  try {
    inspector = await startInspector({
      target,
      allowActions,
      port,
      operator: () => ctx.operator(),
      audit: (action, details) => ctx.audit(action, details),
      now: ctx.io.now,
      note: (text) => ctx.note(text),
      followUp: ctx.followUp,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `port ${port} is taken (another baton inspect?): pass --port <n>, or --port 0 for any free one`,
    );
  }
  ctx.print({ url: inspector.url, table: target.names.table, allowActions }, (r) =>
    [
      `baton inspect: ${r.url}`,
      `  ${r.table}, ${r.allowActions ? 'actions allowed (each audited)' : 'read-only (--allow-actions to act)'}; Ctrl-C stops it`,
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await inspector.close();
}
