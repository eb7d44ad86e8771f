/**
 * The environment a stdio server is started with.
 *
 * Servers are other people's programs: by default they get only what a program needs to run
 * (where binaries are, who and where the user is, locale, temp dir, time zone, certificates),
 * never our API keys. Proxy variables are left out too because their URLs often carry
 * credentials; a server that needs one gets it through its configured `env`.
 */

/** Variables copied from our environment into every stdio server's environment. */
export const INHERITED_ENVIRONMENT_NAMES: readonly string[] = [
  // POSIX
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LANGUAGE',
  'TMPDIR',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  // TLS trust stores, needed by servers behind corporate certificate authorities.
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Windows
  'APPDATA',
  'LOCALAPPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'USERPROFILE',
  'USERNAME',
  'PATHEXT',
  'COMSPEC',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'WINDIR',
  'PROGRAMFILES',
  'TEMP',
  'TMP',
];

/** Locale variables (`LC_ALL`, `LC_CTYPE`, …) are inherited as a family. */
const INHERITED_ENVIRONMENT_PREFIXES: readonly string[] = ['LC_'];

/** Our environment, as `process.env` shapes it. */
export type ParentEnvironment = Readonly<Record<string, string | undefined>>;

/** What {@link childEnvironment} needs to know about one server. */
export interface ChildEnvironmentSettings {
  /** Variables configured for the server; they win over inherited ones. */
  readonly env: Readonly<Record<string, string>>;
  /** Pass our whole environment instead of the minimal one. */
  readonly inheritEnv: boolean;
}

/** Builds a stdio server's environment from ours (`parent`) and its settings. */
export function childEnvironment(
  parent: ParentEnvironment,
  settings: ChildEnvironmentSettings,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (settings.inheritEnv || isInherited(name, value)) result[name] = value;
  }
  return { ...result, ...settings.env };
}

function isInherited(name: string, value: string): boolean {
  // A value starting with "()" is an exported shell function, a known injection vector (Shellshock).
  if (value.startsWith('()')) return false;
  const upper = name.toUpperCase();
  return (
    INHERITED_ENVIRONMENT_NAMES.includes(upper) ||
    INHERITED_ENVIRONMENT_PREFIXES.some((prefix) => upper.startsWith(prefix))
  );
}
