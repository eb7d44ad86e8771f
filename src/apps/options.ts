/** The library's settings for MCP Apps (`createRunner({ apps: {…} })`): given at all, apps are on. */
import type { HostedApp } from './hosted-app.js';

export interface AppsOptions {
  /** The page's theme, told to every app. Default `light`. */
  readonly theme?: 'light' | 'dark';
  /** The locale told to every app (BCP 47). Default: this process's. */
  readonly locale?: string;
  /** The largest app document served, in bytes. Default 4 MiB. */
  readonly maxAppBytes?: number;
  /**
   * Asked before a link an app names (`ui/open-link`) is opened; resolve true to open it (the
   * caller opens it). Missing: links are never opened.
   */
  readonly openLink?: (request: { readonly app: HostedApp; readonly url: string }) => Promise<boolean>;
}
