/**
 * Prints a signed demo token (and the page's sign-in link) for a bank user:
 * `pnpm token alice`, `pnpm token teller admin` (then the page's origin, default `pnpm dev`'s).
 * Uses BANK_DEMO_SECRET like the app. The token is good for 12 hours.
 */
import { BankUser, demoToken, TOKEN_HOURS } from './demoAuth.ts';

const [userId = 'alice', role = 'customer', origin = 'http://127.0.0.1:3000'] =
  process.argv.slice(2);
const token = demoToken(BankUser.parse({ userId, role }));
const until = new Date(Date.now() + TOKEN_HOURS * 3_600_000).toISOString();
console.log(token);
console.error(`sign in as ${userId} (${role}) until ${until}: ${origin}/#token=${token}`);
