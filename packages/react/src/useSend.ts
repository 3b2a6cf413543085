import type { ClientSendOptions } from '@baton/client';
import type { ActorRef, AnyActorDefinition, PayloadOf, PublicMessageName } from '@baton/core';
import { useCallback } from 'react';
import { useBatonClient } from './useBatonClient.ts';

/**
 * The function {@link useSend} returns: `client.send` with the hook's defaults.
 *
 * @example
 * const send: SendFunction = useSend({ visible: true });
 */
export type SendFunction = <Def extends AnyActorDefinition, Name extends PublicMessageName<Def>>(
  to: ActorRef<Def>,
  name: Name,
  payload: PayloadOf<Def, Name>,
  options?: ClientSendOptions,
) => Promise<{ messageId: string }>;

/**
 * Options of {@link useSend}: defaults for every send it makes.
 *
 * @example
 * const send = useSend({ visible: true } satisfies UseSendOptions);
 */
export interface UseSendOptions {
  /**
   * Resolve once the write shows in this client's subscribed queries (read-your-writes)
   * rather than once it is accepted. @default false
   */
  readonly visible?: boolean;
}

/**
 * A stable function sending messages to actors through the provider's client, typed like
 * `client.send`; with `{ visible: true }` its promise resolves once the write shows in the
 * page's live queries (so a spinner can stop exactly when the view is up to date).
 *
 * @example
 * function Deposit({ account }: { account: string }) {
 *   const send = useSend({ visible: true });
 *   const [busy, setBusy] = useState(false);
 *   const onClick = async () => {
 *     setBusy(true);
 *     await send(Account.ref(account), 'deposit', { amount: 5 }).finally(() => setBusy(false));
 *   };
 *   return <button disabled={busy} onClick={onClick}>+5</button>;
 * }
 */
export function useSend(options: UseSendOptions = {}): SendFunction {
  const client = useBatonClient();
  const visible = options.visible === true;
  return useCallback<SendFunction>(
    (to, name, payload, sendOptions) => client.send(to, name, payload, { visible, ...sendOptions }),
    [client, visible],
  );
}
