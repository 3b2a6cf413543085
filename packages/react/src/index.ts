/**
 * `@baton/react`: React hooks over `@baton/client` — live queries with `useQuery` (on
 * `useSyncExternalStore`), a workflow instance's live progress with `useWorkflow`, sends and
 * asks, and the connection state.
 */
export { BatonContext } from './BatonContext.ts';
export { BatonProvider, type BatonProviderProps } from './BatonProvider.tsx';
export { type AskFunction, useAsk } from './useAsk.ts';
export { useBatonClient } from './useBatonClient.ts';
export { useConnectionState } from './useConnectionState.ts';
export { useQuery } from './useQuery.ts';
export { type SendFunction, type UseSendOptions, useSend } from './useSend.ts';
export { useWorkflow, type WorkflowProgress } from './useWorkflow.ts';
