/**
 * `@baton/cdk`: deploy a Baton app with one construct, `BatonApp`.
 */
export { BatonApp, type BatonFunctionName } from './BatonApp.ts';
export type {
  BatonAppProps,
  IngressAuth,
  ReservedConcurrency,
  StageThrottle,
  WebSocketAuth,
} from './BatonAppProps.ts';
