/** Where adapters find `invalidArgument`: it lives with the error model (errors.ts). */
export { invalidArgument, messageOf } from '../errors.ts';
