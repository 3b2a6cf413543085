/**
 * Where adapters find `invalidArgument` and the option checks built on it: they live with the
 * error model (errors.ts).
 */
export { checkCount, invalidArgument, messageOf, refuseOptions } from '../errors.ts';
