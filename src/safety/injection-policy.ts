/**
 * The policies for content the injection detector flags, apart from the detector: the command line
 * checks `--injection-policy` against them on every run, `--help` included, without loading it.
 */

/** What to do with content the detector flags. */
export type InjectionPolicy = 'warn' | 'ask' | 'redact' | 'block';
export const INJECTION_POLICIES: readonly InjectionPolicy[] = ['warn', 'ask', 'redact', 'block'];
