/**
 * `@baton/cli/init`: what `baton init` and `npm create baton` run — scaffold a new app and
 * install it.
 */
export { INIT_USAGE, initCommand } from './initCommand.ts';
export { type ScaffoldOptions, scaffold } from './scaffold.ts';
