/**
 * Hiding secrets in what we write down: the audit log and `--debug` output.
 *
 * Two nets. Structured values (tool arguments) are redacted by key: the value of any key whose
 * name has a secret-looking word in it (`token`, `key`, `secret`, `password`, `authorization`,
 * `api_key`, `apiKey`, `X-Api-Key`, `GITHUB_TOKEN` …) is replaced, whatever it holds — unless it is
 * a number, a boolean or null, which are settings (`max_tokens: 100`), not secrets. Free text
 * (server stderr lines, string values) is redacted by shape: `key=value` / `key: value` pairs with
 * such a key, `Bearer …` credentials, passwords in URLs, and the fixed prefixes of common API keys.
 *
 * Names are split into words, so `keyword`, `monkey` or `tokenizer` are left alone.
 */

/** What a redacted value becomes. */
export const REDACTED = '[REDACTED]';

/** Words that make a key name secret-looking (compared in lower case, after splitting into words). */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  'token',
  'tokens',
  'key',
  'keys',
  'apikey',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'pwd',
  'authorization',
  'auth',
  'credential',
  'credentials',
  'cookie',
  'cookies',
  'privatekey',
  'accesskey',
  'secretkey',
  'accesstoken',
  'refreshtoken',
  'clientsecret',
  'bearer',
]);

/** Deeper than this, a value is replaced rather than walked (arguments are JSON: no cycles, but no limits either). */
const MAX_DEPTH = 64;

/** `apiKey`, `API_KEY`, `x-api-key`, `GitHubToken` → their words, in lower case. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** True for a key whose value should never be written down. */
export function isSecretKey(name: string): boolean {
  return wordsOf(name).some((word) => SECRET_WORDS.has(word));
}

/** Credentials with a recognisable shape, wherever they appear. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API key
];

/** `Bearer abc.def`, `Basic dXNlcjpwYXNz`: the scheme stays, the credential goes. */
const AUTHORIZATION_SCHEME = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/** `https://user:password@host` → `https://user:[REDACTED]@host`. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^@\s/]+@/gi;

/**
 * `name = value`, `name: value`, `"name": "value"`, `name=value&…`. The value is a quoted string,
 * an authorization scheme with its credential, or a run of non-separator characters.
 */
const KEY_VALUE =
  /(["']?)([A-Za-z_][A-Za-z0-9_.-]*)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|(?:Bearer|Basic|Token)\s+\S+|[^\s"',;&}]+)/g;

/** Redacts secrets in free text (a log line, a string value). */
export function redactText(text: string): string {
  let result = redactKeyValues(text);
  result = result.replace(AUTHORIZATION_SCHEME, (_whole, scheme: string) => `${scheme} ${REDACTED}`);
  result = result.replace(URL_PASSWORD, `$1${REDACTED}@`);
  for (const shape of TOKEN_SHAPES) result = result.replace(shape, REDACTED);
  return result;
}

/** Redacts the values of `key=value` pairs whose key is secret-looking. */
function redactKeyValues(text: string): string {
  const pattern = new RegExp(KEY_VALUE.source, 'g');
  let result = '';
  let copied = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const [whole, quote = '', name = '', separator = '', value = ''] = match;
    if (!isSecretKey(name) || /^\d+$/.test(value) || value === REDACTED) {
      // Not a secret; but its "value" may hold one (`stderr: TOKEN=x`): look again after the name.
      pattern.lastIndex = match.index + quote.length + name.length;
      continue;
    }
    const quoted =
      value.startsWith('"') || value.startsWith("'") ? `${value[0]}${REDACTED}${value[0]}` : REDACTED;
    result += `${text.slice(copied, match.index)}${quote}${name}${quote}${separator}${quoted}`;
    copied = match.index + whole.length;
  }
  return result + text.slice(copied);
}

/**
 * A copy of `value` with secrets redacted: the values of secret-looking keys (at any depth), and
 * secrets found in strings by {@link redactText}. The input is not changed.
 */
export function redactSecrets(value: unknown): unknown {
  return redactValue(value, 0);
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[TOO DEEP]';
  if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const keep = typeof item === 'number' || typeof item === 'boolean' || item === null;
    // defineProperty: a key named "__proto__" stays a plain key.
    Object.defineProperty(result, key, {
      value: isSecretKey(key) && !keep ? REDACTED : redactValue(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
