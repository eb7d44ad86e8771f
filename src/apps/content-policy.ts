/**
 * The Content-Security-Policy an app's frame is served with, from the domains its resource
 * declares (`_meta.ui.csp`). Nothing is allowed that the resource did not name: no network by
 * default, scripts and styles inline only, no plugins, no forms posted anywhere, and the document
 * is sandboxed by the header too (so opening its URL outside the frame gives it no origin either).
 */

/** What a resource declared, each domain checked. */
export interface AppContentPolicy {
  readonly connectDomains: readonly string[];
  readonly resourceDomains: readonly string[];
  readonly frameDomains: readonly string[];
  readonly baseUriDomains: readonly string[];
  /** Declared entries left out for not being an origin (a warning each). */
  readonly rejected: readonly string[];
}

/**
 * An origin as CSP takes it: scheme, host (a leading `*.` allowed), optional port. Anything else
 * (quotes, `;`, spaces, keywords like `'unsafe-eval'`, paths) could widen or break the policy.
 */
const ORIGIN = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::(?:\d{1,5}|\*))?$/;

type PolicyKey = 'connectDomains' | 'resourceDomains' | 'frameDomains' | 'baseUriDomains';

/** Reads `_meta.ui` of a resource's content (any shape: it comes from a server). */
export function contentPolicyOf(ui: unknown): AppContentPolicy {
  const csp: unknown = typeof ui === 'object' && ui !== null && 'csp' in ui ? ui.csp : undefined;
  const rejected: string[] = [];
  const domains = (key: PolicyKey): readonly string[] => {
    const listed: unknown =
      typeof csp === 'object' && csp !== null && key in csp ? (csp as Record<string, unknown>)[key] : [];
    if (!Array.isArray(listed)) return [];
    return listed.filter((entry): entry is string => {
      const ok = typeof entry === 'string' && ORIGIN.test(entry);
      if (!ok) rejected.push(`${key}: ${String(entry)}`);
      return ok;
    });
  };
  return {
    connectDomains: domains('connectDomains'),
    resourceDomains: domains('resourceDomains'),
    frameDomains: domains('frameDomains'),
    baseUriDomains: domains('baseUriDomains'),
    rejected,
  };
}

/** The header's value; `reportUri` receives the browser's reports of what it blocked. */
export function contentSecurityPolicy(policy: AppContentPolicy, reportUri: string): string {
  const list = (domains: readonly string[], ...sources: string[]): string =>
    [...sources, ...domains].join(' ') || "'none'";
  const resources = policy.resourceDomains;
  return [
    "default-src 'none'",
    `script-src ${list(resources, "'unsafe-inline'")}`,
    `style-src ${list(resources, "'unsafe-inline'")}`,
    `img-src ${list(resources, 'data:', 'blob:')}`,
    `font-src ${list(resources, 'data:')}`,
    `media-src ${list(resources, 'data:', 'blob:')}`,
    `connect-src ${list(policy.connectDomains)}`,
    `frame-src ${list(policy.frameDomains)}`,
    `base-uri ${list(policy.baseUriDomains)}`,
    "form-action 'none'",
    "object-src 'none'",
    'sandbox allow-scripts allow-forms',
    `report-uri ${reportUri}`,
  ].join('; ');
}
