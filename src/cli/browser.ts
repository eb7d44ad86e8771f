/**
 * Opening a page in the system browser, for sign-in and URL-mode elicitation alike: one rule for
 * whether there is a browser, one opener.
 */
import type { CliIO } from './io.js';

/** Whether a browser can be opened here: not over SSH, and on Linux only with a display. */
export function hasBrowser(env: CliIO['env']): boolean {
  if (env.SSH_CONNECTION !== undefined || env.SSH_TTY !== undefined) return false;
  if (process.platform === 'linux') return env.DISPLAY !== undefined || env.WAYLAND_DISPLAY !== undefined;
  return true;
}

/**
 * Opens `url` in the system browser when there is one; resolves false when there is none (the
 * caller has the URL on screen for the user to open). Never throws.
 */
export async function openInBrowser(url: string, env: CliIO['env']): Promise<boolean> {
  if (!hasBrowser(env)) return false;
  try {
    // `open` knows each system's opener (xdg-open, open, start, WSL); loaded only when needed.
    const { default: open } = await import('open');
    const child = await open(url);
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    // No opener: the URL is on the screen.
    return false;
  }
}
