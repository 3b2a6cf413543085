/**
 * How an error's hint names an operator's next command: `baton <command>` by default. The CLI
 * passes its own, which adds the target options it was given (`--stack`, `--region`, …), so a
 * hint copied from its output acts on the same deployment, not the default one.
 */
export type FollowUp = (command: string) => string;

/** `baton <command>`, as is: what a hint names when its caller passes no {@link FollowUp}. */
export const batonCommand: FollowUp = (command) => `baton ${command}`;
