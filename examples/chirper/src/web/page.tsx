/**
 * Chirper's page: several users side by side, one column each. A column posts as its user,
 * follows and unfollows the others, and shows the user's live timeline — one `timeline` query
 * that reads every followed user's actor, so a post in one column appears in its followers'
 * columns (and in any other window) as soon as it commits. `?users=alice,bob,carol` picks the
 * columns; "Add column" opens another.
 */
import { BatonClient } from '@baton/client';
import { BatonProvider, useConnectionState, useQuery, useSend } from '@baton/react';
import { type FormEvent, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { MAX_POST_LENGTH, User, UserName } from '../chirper.ts';
import { profile, type TimelinePost, timeline } from '../queries.ts';
import { STYLES } from './styles.ts';

const DEFAULT_USERS = ['alice', 'bob', 'carol'];

function usersFromUrl(): string[] {
  const listed = new URLSearchParams(location.search).get('users')?.split(',') ?? [];
  const valid = [...new Set(listed.filter((name) => UserName.safeParse(name).success))];
  return valid.length > 0 ? valid : DEFAULT_USERS;
}

const PALETTE = ['#d9485f', '#2b9a66', '#3b6fd8', '#c97a12', '#8652d1', '#cf4b9a', '#16949f'];

/** A stable colour per user name. */
function colour(name: string): string {
  let h = 0;
  for (const char of name) h = (h * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

function Avatar({ name, size = 'small' }: { name: string; size?: 'small' | 'large' }) {
  return (
    <span className={`avatar ${size}`} style={{ background: colour(name) }} aria-hidden="true">
      {name.charAt(0).toUpperCase()}
    </span>
  );
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function Compose({ user }: { user: string }) {
  const send = useSend({ visible: true });
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      // Resolves once this page's live timeline shows the post.
      await send(User.ref(user), 'post', { text });
      setText('');
    } catch (failure) {
      setError(message(failure));
    } finally {
      setBusy(false);
    }
  };
  const left = MAX_POST_LENGTH - text.length;
  return (
    <form className="compose" onSubmit={onSubmit}>
      <textarea
        aria-label={`post as ${user}`}
        placeholder={`What's happening, ${user}?`}
        value={text}
        rows={2}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
            event.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <div className="compose-bar">
        {/* Past the limit the counter goes negative; a send would be refused, with the reason. */}
        <span className={left < 20 ? 'counter low' : 'counter'} data-testid={`left-${user}`}>
          {left}
        </span>
        <button type="submit" className="primary" disabled={busy || text.trim() === ''}>
          {busy ? 'Posting…' : 'Post'}
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function FollowButtons({
  user,
  others,
  following,
}: {
  user: string;
  others: readonly string[];
  following: readonly string[];
}) {
  const send = useSend({ visible: true });
  const [pending, setPending] = useState<string>();
  const [error, setError] = useState('');
  const toggle = async (other: string, follows: boolean) => {
    setPending(other);
    setError('');
    try {
      if (follows) await send(User.ref(user), 'unfollow', { user: other });
      else await send(User.ref(user), 'follow', { user: other });
    } catch (failure) {
      setError(message(failure));
    } finally {
      setPending(undefined);
    }
  };
  if (others.length === 0) return null;
  return (
    <div className="follows">
      {others.map((other) => {
        const follows = following.includes(other);
        return (
          <button
            key={other}
            type="button"
            className={follows ? 'chip on' : 'chip'}
            aria-pressed={follows}
            disabled={pending === other}
            onClick={() => toggle(other, follows)}
          >
            {follows ? 'Unfollow' : 'Follow'} <b>{other}</b>
          </button>
        );
      })}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Timeline({ user }: { user: string }) {
  const { status, data, error } = useQuery(timeline, { user });
  const send = useSend();
  const [refused, setRefused] = useState('');
  if (status === 'pending') return <p className="empty">Loading…</p>;
  const posts: readonly TimelinePost[] = data?.posts ?? [];
  const remove = (id: number) => {
    setRefused('');
    send(User.ref(user), 'unpost', { id }).catch((failure) => setRefused(message(failure)));
  };
  return (
    <>
      {(error || refused) && (
        <p className="error" role="alert">
          {error?.message ?? refused}
        </p>
      )}
      {posts.length === 0 ? (
        <p className="empty">Nothing here yet: post something, or follow someone.</p>
      ) : (
        <ol className="timeline" aria-label={`${user}'s timeline`}>
          {posts.map((post) => (
            <li key={`${post.author}/${post.id}`} className="post">
              <Avatar name={post.author} />
              <div className="post-body">
                <div className="post-meta">
                  <b>{post.author}</b>
                  {post.author === user && <span className="you">you</span>}
                  <time dateTime={new Date(post.at).toISOString()}>
                    {new Date(post.at).toLocaleTimeString([], {
                      hour: '2-digit',
                      minute: '2-digit',
                    })}
                  </time>
                  {post.author === user && (
                    <button
                      type="button"
                      className="delete"
                      aria-label={`delete "${post.text}"`}
                      title="Delete"
                      onClick={() => remove(post.id)}
                    >
                      ×
                    </button>
                  )}
                </div>
                <p className="post-text">{post.text}</p>
              </div>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function Column({
  user,
  others,
  onClose,
}: {
  user: string;
  others: readonly string[];
  onClose: () => void;
}) {
  const { data } = useQuery(profile, { user });
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <section className="column" data-testid={`column-${user}`} aria-label={user}>
      <header className="column-head">
        <Avatar name={user} size="large" />
        <div>
          <h2>{user}</h2>
          <p className="stats" data-testid={`stats-${user}`}>
            {data
              ? `${count(data.posts, 'post', 'posts')} · ${data.following.length} following · ${count(data.followers.length, 'follower', 'followers')}`
              : '…'}
          </p>
        </div>
        <button type="button" className="close" aria-label={`close ${user}`} onClick={onClose}>
          ×
        </button>
      </header>
      <Compose user={user} />
      <FollowButtons user={user} others={others} following={data?.following ?? []} />
      <h3>Timeline</h3>
      <Timeline user={user} />
    </section>
  );
}

function AddColumn({ onAdd }: { onAdd: (name: string) => void }) {
  const [name, setName] = useState('');
  const valid = UserName.safeParse(name).success;
  return (
    <form
      className="add"
      onSubmit={(event) => {
        event.preventDefault();
        if (!valid) return;
        onAdd(name);
        setName('');
      }}
    >
      <input
        aria-label="user name"
        placeholder="user name"
        value={name}
        onChange={(event) => setName(event.target.value.trim())}
      />
      <button type="submit" disabled={!valid}>
        Add column
      </button>
    </form>
  );
}

function App() {
  const [users, setUsers] = useState(usersFromUrl);
  const connection = useConnectionState();
  const update = (next: string[]) => {
    setUsers(next);
    const url = new URL(location.href);
    url.searchParams.set('users', next.join(','));
    history.replaceState(null, '', url);
  };
  return (
    <>
      <style>{STYLES}</style>
      <header className="top">
        <h1>
          Chirper <span>live timelines on Baton</span>
        </h1>
        <AddColumn onAdd={(name) => update(users.includes(name) ? users : [...users, name])} />
        <span className={`connection ${connection}`} data-testid="connection">
          {connection}
        </span>
      </header>
      <main className="columns">
        {users.map((user) => (
          <Column
            key={user}
            user={user}
            others={users.filter((other) => other !== user)}
            onClose={() => update(users.filter((other) => other !== user))}
          />
        ))}
      </main>
    </>
  );
}

const url = document.querySelector<HTMLMetaElement>('meta[name="baton-url"]')!.content;
createRoot(document.getElementById('root')!).render(
  <BatonProvider client={new BatonClient({ url })}>
    <App />
  </BatonProvider>,
);
