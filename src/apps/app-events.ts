/** What the apps of a session report (defined with HostedApp, which announces them). */
export type { AppEvent } from './hosted-app.js';
