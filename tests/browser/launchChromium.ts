import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM } from '../setup/ensureChromium.ts';

/** Debian's headless Chromium, driven by playwright-core (its own browsers cannot be fetched). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
