/**
 * Which of the accepted forms a server entry is, and checking it against that form's schema.
 *
 * Deciding the form first (from `type`, else from `command` / `url`) lets an error speak of the
 * form the author meant, instead of listing why each form failed as a schema union would.
 */
import type { ConfigPath, Problem } from './problems.js';
import { describeKind, problemsFromError, quoteValue, renderPath } from './problems.js';
import type { BuiltinServerEntry, LocalServerEntry, RemoteServerEntry, StdioServerEntry } from './schema.js';
import {
  builtinServerSchema,
  localServerSchema,
  remoteServerSchema,
  serverFormKeys,
  serverTypes,
  stdioServerSchema,
} from './schema.js';

/** Where checks put what they find: errors, and warnings that are never fatal. */
export interface ProblemReport {
  readonly problems: Problem[];
  readonly warnings: string[];
}

/** The shapes of entry: Claude's stdio, the Go mcphost's local and builtin, and remote. */
export type ServerForm = keyof typeof serverFormKeys;

const FORM_LABELS: Readonly<Record<ServerForm, string>> = {
  stdio: 'a stdio server',
  local: 'a "local" server',
  remote: 'a remote server',
  builtin: 'a built-in server',
};

const ALL_FORM_KEYS = new Set<string>([
  ...serverFormKeys.stdio,
  ...serverFormKeys.local,
  ...serverFormKeys.remote,
  // Not the built-in form's `name` and `options`: other tools' entries carry such keys of their
  // own, and an unknown key there is only a warning.
]);

/** True for `{…}` (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A copy without keys set to null: in YAML, `env:` with nothing under it means "not set". */
export function withoutNulls(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== null));
}

/** Which form an entry is, or the problem that keeps us from telling. */
export function chooseForm(
  entry: Record<string, unknown>,
  path: ConfigPath,
): { form: ServerForm; transport: 'stdio' | 'http' | 'sse' | 'builtin' } | Problem {
  const { type } = entry;
  if (type === undefined) {
    if (entry.command !== undefined && entry.url !== undefined) {
      return { path, message: 'has both "command" and "url" (a server is either local or remote)' };
    }
    if (entry.command !== undefined) {
      return Array.isArray(entry.command)
        ? { form: 'local', transport: 'stdio' }
        : { form: 'stdio', transport: 'stdio' };
    }
    if (entry.url !== undefined) return { form: 'remote', transport: 'http' };
    return { path, message: 'needs "command" (a local server) or "url" (a remote one)' };
  }
  const typePath = [...path, 'type'];
  if (typeof type !== 'string') {
    return { path: typePath, message: `expected string, got ${describeKind(type)}` };
  }
  switch (type) {
    case 'stdio':
      return { form: 'stdio', transport: 'stdio' };
    case 'local':
      return { form: 'local', transport: 'stdio' };
    case 'http':
    case 'streamable-http':
    case 'remote':
      return { form: 'remote', transport: 'http' };
    case 'sse':
      return { form: 'remote', transport: 'sse' };
    case 'builtin':
      return { form: 'builtin', transport: 'builtin' };
    default: {
      const accepted = serverTypes.map((name) => JSON.stringify(name)).join(', ');
      return { path: typePath, message: `expected one of ${accepted}, got ${quoteValue(type)}` };
    }
  }
}

/** Why a key of another form does not belong here, in words that point at the fix. */
function misplacedKeyMessage(form: ServerForm, key: string): string {
  const label = FORM_LABELS[form];
  if (form === 'stdio' && key === 'environment') return `not a key of ${label} (use "env")`;
  if (form === 'local' && key === 'env') return `not a key of ${label} (use "environment")`;
  if (form === 'local' && key === 'args') {
    return `not a key of ${label} (put the arguments in the "command" list)`;
  }
  if (form === 'remote') return `not a key of ${label} (it has a "url")`;
  if (form === 'builtin') return `not a key of ${label} (it runs inside mcphost; settings go in "options")`;
  return `not a key of ${label} (it has a "command")`;
}

/** Checks the keys the chosen form does not know: another form's key is an error, others a warning. */
export function checkKeys(
  entry: Record<string, unknown>,
  form: ServerForm,
  path: ConfigPath,
  report: ProblemReport,
): void {
  const known: readonly string[] = serverFormKeys[form];
  for (const key of Object.keys(entry)) {
    if (known.includes(key)) continue;
    if (ALL_FORM_KEYS.has(key)) {
      report.problems.push({ path: [...path, key], message: misplacedKeyMessage(form, key) });
    } else {
      report.warnings.push(`${renderPath([...path, key])}: unknown key, ignored`);
    }
  }
}

/** A hint for the commonest mix-up between the two local forms, before the schema's plainer message. */
export function commandShapeProblem(
  entry: Record<string, unknown>,
  form: ServerForm,
  path: ConfigPath,
): Problem | undefined {
  if (form === 'stdio' && Array.isArray(entry.command)) {
    return {
      path: [...path, 'command'],
      message: 'expected string, got array (a command list needs "type": "local")',
    };
  }
  if (form === 'local' && typeof entry.command === 'string') {
    return {
      path: [...path, 'command'],
      message: 'expected array, got string (with "type": "local", command is a list)',
    };
  }
  return undefined;
}

/** An entry checked against its form's schema. */
export type ParsedEntry =
  | { readonly form: 'stdio'; readonly entry: StdioServerEntry }
  | { readonly form: 'local'; readonly entry: LocalServerEntry }
  | { readonly form: 'remote'; readonly entry: RemoteServerEntry }
  | { readonly form: 'builtin'; readonly entry: BuiltinServerEntry };

/** Checks an entry against the schema of its form; problems go to `report`. */
export function parseForm(
  entry: Record<string, unknown>,
  form: ServerForm,
  path: ConfigPath,
  report: ProblemReport,
): ParsedEntry | undefined {
  const options = { reportInput: true };
  let parsed: ParsedEntry | undefined;
  switch (form) {
    case 'stdio': {
      const result = stdioServerSchema.safeParse(entry, options);
      if (result.success) parsed = { form, entry: result.data };
      else report.problems.push(...problemsFromError(result.error, path));
      break;
    }
    case 'local': {
      const result = localServerSchema.safeParse(entry, options);
      if (result.success) parsed = { form, entry: result.data };
      else report.problems.push(...problemsFromError(result.error, path));
      break;
    }
    case 'remote': {
      const result = remoteServerSchema.safeParse(entry, options);
      if (result.success) parsed = { form, entry: result.data };
      else report.problems.push(...problemsFromError(result.error, path));
      break;
    }
    case 'builtin': {
      const result = builtinServerSchema.safeParse(entry, options);
      if (result.success) parsed = { form, entry: result.data };
      else report.problems.push(...problemsFromError(result.error, path));
      break;
    }
    default: {
      const unexpected: never = form;
      return unexpected;
    }
  }
  return parsed;
}
