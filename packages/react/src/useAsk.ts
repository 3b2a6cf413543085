import type { ClientAskOptions } from '@baton/client';
import type {
  ActorRef,
  AnyActorDefinition,
  PayloadOf,
  PublicMessageName,
  ReplyOf,
} from '@baton/core';
import { useCallback } from 'react';
import { useBatonClient } from './useBatonClient.ts';

/**
 * The function {@link useAsk} returns: `client.ask`.
 *
 * @example
 * const ask: AskFunction = useAsk();
 */
export type AskFunction = <Def extends AnyActorDefinition, Name extends PublicMessageName<Def>>(
  to: ActorRef<Def>,
  name: Name,
  payload: PayloadOf<Def, Name>,
  options?: ClientAskOptions,
) => Promise<ReplyOf<Def, Name>>;

/**
 * A stable function asking actors through the provider's client: resolves with the handler's
 * reply, rejects with a BatonError carrying `code` (REJECTED for a TerminalError, …).
 *
 * @example
 * function Withdraw({ account }: { account: string }) {
 *   const ask = useAsk();
 *   const [message, setMessage] = useState('');
 *   const onClick = () =>
 *     ask(Account.ref(account), 'withdraw', { amount: 5 }).then(
 *       (balance) => setMessage(`left: ${balance}`),
 *       (error) => setMessage(error.code === 'REJECTED' ? error.message : 'try again'),
 *     );
 *   return <button onClick={onClick}>-5</button>;
 * }
 */
export function useAsk(): AskFunction {
  const client = useBatonClient();
  return useCallback<AskFunction>(
    (to, name, payload, options) => client.ask(to, name, payload, options),
    [client],
  );
}
