/**
 * Makes sure Debian's Chromium is there for the browser tests (`/usr/bin/chromium`, driven by
 * playwright-core; Playwright's own browser download cannot be used). Installs it with apt-get
 * when running as root; otherwise says what to install.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `Baton's browser tests need Debian's Chromium at ${CHROMIUM}: install it with "sudo apt-get install chromium", then run the tests again.`,
    );
    process.exit(1);
  }
  console.log(`installing Chromium for the browser tests (apt-get install chromium)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}
