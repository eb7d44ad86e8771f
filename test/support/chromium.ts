/**
 * Debian's chromium (installed by .ci/run), driven by playwright-core, for the MCP Apps tests.
 * Headless, without its own sandbox (it runs as root in CI containers), and quiet: no background
 * requests of its own, so the only network the tests see is the page's.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser is installed (the tests that need it are skipped otherwise, saying so). */
export const hasChromium = existsSync(CHROMIUM);

/** A new browser; playwright gives each launch a fresh profile folder of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
