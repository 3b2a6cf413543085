/**
 * What an operator paged at night reads first: each alarm's description says what happened and
 * names the first `baton` command to run, one the CLI has, spelt as it takes it.
 */
import { BatonApp, type BatonAppProps } from '@baton/cdk';
import { App, type Environment, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { notACommand } from '../opsCommands.ts';

const entry = new URL('../../examples/bank/src/app.ts', import.meta.url).pathname;

/** The description of each alarm a BatonApp made with `props` synthesizes, by its logical id. */
function descriptions(
  props: Partial<BatonAppProps> = {},
  env: Environment = { account: '123456789012', region: 'eu-west-1' },
): Record<string, string> {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bank', { env });
  new BatonApp(stack, 'Baton', { entry, webSocketAuth: 'app', ...props });
  const alarms = Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm');
  return Object.fromEntries(
    Object.entries(alarms).map(([id, alarm]) => [id, alarm.Properties.AlarmDescription]),
  );
}

describe("every alarm's description", () => {
  const cases: Array<[string, Partial<BatonAppProps>]> = [
    ['by default', {}],
    ['with highThroughputInbox', { highThroughputInbox: true }],
  ];
  it.each(cases)('names a baton command the CLI has, %s', (_, props) => {
    const all = descriptions(props);
    expect(Object.keys(all).length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const [id, description] of Object.entries(all)) {
      // CloudWatch takes up to 1,024 characters.
      if (typeof description !== 'string' || description.length > 1024) {
        wrong.push(`${id}: no description, or one longer than 1,024 characters`);
        continue;
      }
      const commands = [...description.matchAll(/`(baton [^`]+)`/g)].map((match) => match[1]!);
      if (commands.length === 0) wrong.push(`${id}: names no baton command`);
      for (const command of commands) {
        const why = notACommand(command);
        if (why) wrong.push(`${id}: ${why}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names each dead-letters redrive or purge, and each actors command, with what it needs to run', () => {
    const wrong: string[] = [];
    for (const [id, description] of Object.entries(descriptions())) {
      for (const [, command] of description.matchAll(/`(baton [^`]+)`/g)) {
        // Bare, each is a usage error: missing <type/key> (and <message id>), or --all.
        const bare =
          /^baton dead-letters (?:redrive|purge)(?! <type\/key> <message id>| --all)/.test(
            command!,
          ) || /^baton actors (?:get|pause|resume)(?! \S)/.test(command!);
        if (bare) wrong.push(`${id}: ${command}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('says to preview a bulk redrive of the dead letters, and that an ask’s letter needs --force', () => {
    const all = descriptions();
    const of = (alarm: string) =>
      Object.entries(all).find(([id]) => id.startsWith(`Baton${alarm}`))?.[1] ?? '';
    expect(of('EngineDeadLettersAlarm')).toContain(
      'fix the cause, then `baton dead-letters redrive --all --code <code> --dry-run`, then without --dry-run. It leaves an ask’s letter (its asker was told DEAD_LETTERED): purge it, or redrive it with --force.',
    );
    expect(of('KeptDeadLettersAlarm')).toContain(
      'fix the cause, then `baton dead-letters redrive --all --dry-run`, then without --dry-run (it leaves an ask’s letter, whose asker was told DEAD_LETTERED: purge it, or redrive it with --force), or `baton actors resume <type/key>`. A redriven letter stays listed until its actor applies it: do not purge it meanwhile.',
    );
    expect(of('StateTooLargeAlarm')).toContain(
      'deploy, then `baton dead-letters redrive --all --code STATE_TOO_LARGE --dry-run`, then without --dry-run (an ask’s letter only with --force: its asker was told DEAD_LETTERED)',
    );
    // The workflows' commands that need no --app first; the one that does, last.
    const paused = of('PausedWorkflowsAlarm');
    expect(paused.indexOf('`baton workflows show <workflow> <id>`')).toBeLessThan(
      paused.indexOf('--app <entry>'),
    );
    expect(paused.indexOf('`baton workflows list <workflow> --status paused`')).toBeLessThan(
      paused.indexOf('--app <entry>'),
    );
  });

  it('ends with the target options that make its commands act on this app', () => {
    const ends = (all: Record<string, string>) =>
      new Set(Object.values(all).map((d) => d.slice(d.lastIndexOf(' Run the baton commands'))));
    expect(ends(descriptions())).toEqual(
      new Set([' Run the baton commands with `--stack Bank --region eu-west-1`.']),
    );
    // A stack deployed to whichever region the CLI names says no region it cannot know.
    expect(ends(descriptions({}, {}))).toEqual(
      new Set([' Run the baton commands with `--stack Bank`.']),
    );
  });
});
