/**
 * Where VS Code keeps its MCP config, and the values of a file's inputs: from the environment
 * (`MCPHOST_INPUT_<ID>`: `-p`, batches, workers), else asked (the chat), else the input's default.
 * Values are never written anywhere: they are asked again at each start.
 */
import { join } from 'node:path';
import { ConfigError } from '../src/core/errors.js';
import type { ConfigEnvironment } from './parse.js';
import { inputVariableName, usedInputs, type ConfigInput } from './vscode-form.js';

/** A project's VS Code config, relative to the project folder. */
export const VSCODE_PROJECT_FILE = join('.vscode', 'mcp.json');

/**
 * The user's VS Code `mcp.json`: `%APPDATA%\Code\User\mcp.json` on Windows,
 * `~/Library/Application Support/Code/User/mcp.json` on macOS, and
 * `$XDG_CONFIG_HOME/Code/User/mcp.json` (else `~/.config/Code/User/mcp.json`) elsewhere.
 */
export function vsCodeUserFile(
  homeDir: string,
  env: ConfigEnvironment,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32') {
    return join(env.APPDATA ?? join(homeDir, 'AppData', 'Roaming'), 'Code', 'User', 'mcp.json');
  }
  if (platform === 'darwin')
    return join(homeDir, 'Library', 'Application Support', 'Code', 'User', 'mcp.json');
  const configHome = env.XDG_CONFIG_HOME;
  const base = configHome === undefined || configHome === '' ? join(homeDir, '.config') : configHome;
  return join(base, 'Code', 'User', 'mcp.json');
}

/** Asks a person for an input's value (the chat); `undefined` when no answer was given. */
export type AskConfigInput = (input: ConfigInput, file: string) => Promise<string | undefined>;

/**
 * The value of every input the file's servers use. Throws a one-line ConfigError naming the file
 * and the input when one has no value (the variable to set is in the message).
 */
export async function inputValues(
  raw: Record<string, unknown>,
  path: string,
  env: ConfigEnvironment,
  ask: AskConfigInput | undefined,
): Promise<ReadonlyMap<string, string>> {
  const values = new Map<string, string>();
  // One at a time: the chat asks one question after another.
  for (const input of usedInputs(raw, path)) {
    const variable = inputVariableName(input.id);
    const answer = env[variable] ?? (ask === undefined ? undefined : await ask(input, path));
    const value = answer === undefined || answer === '' ? input.defaultValue : answer;
    if (value === undefined) {
      throw new ConfigError(
        path,
        `inputs: "${input.id}" has no value: set ${variable}${ask === undefined ? ' (only the chat asks for it)' : ''}`,
      );
    }
    values.set(input.id, value);
  }
  return values;
}
