/**
 * The bank on the embedded backend: a few deposits and transfers, a rejected withdrawal, an
 * invalid payload, a refund from a closed account — then the balances, with the total checked.
 * The steps run as the bank's own trusted code (`client.asSystem()`); a client signed in as
 * a user could not, e.g., send `credit` at all. With `--serve`, the app then stays up with its
 * live page (balances that update as money moves, from this or any other window) until Ctrl-C.
 *
 * Run: pnpm start (from the repository root: the steps, then the page on PORT, default 3000).
 * Set BATON_DATA_DIR to keep the data on disk.
 */
import { isBatonError, jsonLogger } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { Account } from './bank.ts';
import { demoToken } from './demoAuth.ts';
import { servePage } from './web/servePage.ts';

const dataDir = process.env.BATON_DATA_DIR;
const app = startEmbedded({
  actors: [Account],
  ...(dataDir ? { dataDir } : {}),
  logger: jsonLogger({ level: 'warn', write: () => {} }),
});
// The operator's script: trusted code, which says so.
const client = app.client.asSystem();
const alice = Account.ref('alice');
const bob = Account.ref('bob');
const carol = Account.ref('carol');

console.log(
  `Baton bank on the embedded backend (${dataDir ? `data in ${dataDir}` : 'in memory'})\n`,
);

async function step(label: string, run: () => Promise<unknown>): Promise<void> {
  try {
    const result = await run();
    console.log(`  ✓ ${label}${result === undefined ? '' : ` → ${JSON.stringify(result)}`}`);
  } catch (error) {
    if (!isBatonError(error)) throw error;
    console.log(`  ✗ ${label} → ${error.code}: ${error.message}`);
  }
}

// A run id keeps the idempotency keys of this run apart from those of an earlier run on disk.
const run = Date.now().toString(36);
await step('deposit 100 to alice', () =>
  client.ask(alice, 'deposit', { amount: 100 }, { idempotencyKey: `${run}-dep-alice` }),
);
await step('deposit 100 to alice again, same idempotency key (applied once)', () =>
  client.ask(alice, 'deposit', { amount: 100 }, { idempotencyKey: `${run}-dep-alice` }),
);
await step('deposit 50 to bob', () => client.ask(bob, 'deposit', { amount: 50 }));
await step('transfer 30 alice → bob', () =>
  client.ask(alice, 'transfer', { to: 'bob', amount: 30 }),
);
await step('withdraw 500 from bob', () => client.ask(bob, 'withdraw', { amount: 500 }));
await step('deposit -5 to bob', () => client.ask(bob, 'deposit', { amount: -5 }));
await step('close carol', () => client.ask(carol, 'close', {}));
await step('transfer 20 bob → carol (closed: refunded)', () =>
  client.ask(bob, 'transfer', { to: 'carol', amount: 20 }),
);

await step('an anonymous client sends credit to mint money (refused: credit is internal)', () =>
  app.client.send(bob, 'credit', { from: 'nobody', amount: 1_000_000 }),
);

await app.idle();
console.log('\nBalances:');
let total = 0;
for (const account of [alice, bob, carol]) {
  const balance = await client.ask(account, 'balance', {});
  total += balance;
  console.log(`  ${account.key.padEnd(6)} ${String(balance).padStart(5)}`);
}
console.log(`  ${'total'.padEnd(6)} ${String(total).padStart(5)}`);

if (process.argv.includes('--serve')) {
  const port = Number(process.env.PORT ?? 3000);
  const page = await servePage({ runtime: app, port }).catch(async (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    // Most often `pnpm dev` (same port) still runs in another terminal.
    console.error(
      `\nThe page cannot be served: port ${port} is in use (is pnpm dev running?). Stop what uses it, or pick another port: PORT=3002 pnpm start (pnpm dev's inspector has 3001)`,
    );
    await app.stop();
    process.exit(1);
  });
  console.log(`\nLive page: ${page.url} (open it in two windows; Ctrl-C stops). Sign in as`);
  for (const [userId, role] of [
    ['alice', 'customer'],
    ['bob', 'customer'],
    ['carol', 'customer'],
    ['teller', 'admin'],
  ] as const) {
    console.log(`  ${userId.padEnd(6)} ${page.url}#token=${demoToken({ userId, role })}`);
  }
  process.once('SIGINT', async () => {
    await page.close();
    await app.stop();
  });
} else {
  await app.stop();
}
