/**
 * Which operating commands need the app's inbox queue besides its table: those that send to it
 * (an actor's wake-up, a redrive, a message, a workflow's action). Every other command reads the
 * table alone, and `status` and `backlog`, which read the inbox's depth too, leave it out when
 * it is not named, saying so. Given the table alone (`--table` without `--queue-url`), a command
 * that needs the inbox is refused before it reads or asks anything; its `--dry-run`, which reads
 * the table only, runs, with a note of what the command itself needs.
 */
import type { OpsContext } from './OpsContext.ts';
import { inboxRefusal, NAME_THE_INBOX, tableAlone } from './target.ts';

/**
 * Why each command that sends to the inbox needs it, as its refusal says it ("it needs the
 * app's inbox queue <why>"). `inspect` needs it only with `--allow-actions`.
 */
export const INBOX_NEEDS: Readonly<Record<string, string>> = {
  'actors pause': 'to send the actor a wake-up',
  'actors resume': 'to send the actor a wake-up',
  'dead-letters redrive': 'to send each letter back',
  'queue-dead-letters redrive': "to move its dead-letter queue's messages back",
  'workflows cancel': 'to send the cancel to the instance',
  'workflows terminate': 'to send the terminate to the instance',
  'workflows signal': 'to send the signal to the instance',
  'workflows resume': 'to send the resume to the instance',
  send: 'to send the message',
  ask: 'to send the message',
  inspect: "for the page's actions --allow-actions allows (redrive, pause, resume)",
};

/**
 * Refuses command `name` when it needs the inbox and only the table is named; a dry run of it
 * goes on, noting what the command itself needs. Called before the command runs.
 */
export function checkInbox(ctx: OpsContext, name: string): void {
  const why = INBOX_NEEDS[name];
  if (why === undefined) return;
  if (name === 'inspect' && ctx.values['allow-actions'] !== true) return;
  const table = tableAlone(ctx.values, ctx.io.env);
  if (table === undefined) return;
  if (ctx.values['dry-run']) {
    ctx.note(
      `a dry run reads the table alone; without --dry-run, baton ${name} needs the app's inbox queue ${why}: ${NAME_THE_INBOX}`,
    );
    return;
  }
  throw inboxRefusal(
    table,
    why,
    name === 'inspect' ? ' (or drop --allow-actions: the inspector reads the table alone)' : '',
  );
}
