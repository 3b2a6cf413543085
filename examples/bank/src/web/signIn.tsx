/**
 * The bank page's sign-in: the demo token this tab signed in with (kept for the tab), the form
 * that takes one, and the question a sign-in link (`#token=…`) asks first.
 */
import { type FormEvent, useState } from 'react';

const TOKEN_KEY = 'baton-bank-token';

/** Who the page is signed in as. */
export interface Me {
  readonly userId: string;
  readonly admin: boolean;
  readonly token: string;
}

/** Who `token` says the user is, for display only: the server checks its signature. */
export function userOf(token: string): Me | undefined {
  try {
    const body = token.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/');
    const { userId, role } = JSON.parse(atob(body));
    if (typeof userId !== 'string' || typeof role !== 'string') return undefined;
    return { userId, admin: role === 'admin', token };
  } catch {
    return undefined;
  }
}

/** Who this tab signed in as, or none. */
export function signedIn(): Me | undefined {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? userOf(token) : undefined;
}

/**
 * Who the sign-in link's `#token=…` names, taken off the address at once. It is not used until
 * the user confirms the account: anyone can send a link, and one that signed in without asking
 * would let its sender sign a victim in to the sender's account, to receive their deposits.
 */
export function takeLinkUser(): Me | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return token ? userOf(token) : undefined;
}

/** Signs this tab in with `token`, and shows the page as its user. */
function signIn(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
  location.reload();
}

/** Forgets the token: the page shows the sign-in form. */
export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
}

export function SignIn() {
  const [token, setToken] = useState('');
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    signIn(token.trim());
  };
  return (
    <main>
      <section>
        <h2>Sign in</h2>
        <p>
          Sign in with a demo token, signed with the bank's secret. Make one with{' '}
          <code>pnpm --filter @baton/example-bank token alice</code> (or <code>bob</code>,{' '}
          <code>carol</code>, <code>teller admin</code>) and open the link it prints, or paste the
          token here.
        </p>
        <form onSubmit={onSubmit}>
          <input
            name="token"
            aria-label="token"
            style={{ width: '100%' }}
            value={token}
            onChange={(event) => setToken(event.target.value)}
          />
          <button type="submit">sign in</button>
        </form>
      </section>
    </main>
  );
}

/** Asks before a sign-in link signs this tab in, naming the account the link is for. */
export function ConfirmLink({ link, current }: { link: Me; current: Me | undefined }) {
  const { userId } = link;
  return (
    <main>
      <section data-testid="confirm-link">
        <h2>
          Sign in as {userId}
          {link.admin ? ' (admin)' : ''}?
        </h2>
        <p>
          The link you opened signs this tab in as <strong>{userId}</strong>: what you do on this
          page is then done as {userId}, and your deposits go to {userId}'s account.{' '}
          {current ? `This tab is signed in as ${current.userId} now. ` : ''}Sign in only if it is
          your account.
        </p>
        <button type="button" onClick={() => signIn(link.token)}>
          sign in as {userId}
        </button>
        <button type="button" className="quiet" onClick={() => location.reload()}>
          {current ? `stay ${current.userId}` : 'cancel'}
        </button>
      </section>
    </main>
  );
}
