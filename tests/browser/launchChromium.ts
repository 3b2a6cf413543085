import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM } from '../setup/ensureChromium.ts';

/**
 * Debian's headless Chromium, driven by playwright-core (its own browsers cannot be fetched).
 * `args` are added to its command line, e.g. `--host-resolver-rules=MAP name 127.0.0.1`.
 */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      ...args,
    ],
  });
}
