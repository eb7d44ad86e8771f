/**
 * VS Code's config form (`.vscode/mcp.json`, and the user's `mcp.json`): a `servers` map whose
 * entries have the shape of Claude's (`type: "stdio" | "http" | "sse"`, `command`, `args`, `env`,
 * `url`, `headers`), and `inputs` that VS Code asks the user for, referenced as `${input:id}`:
 *
 * ```json
 * { "inputs": [{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }],
 *   "servers": { "github": { "type": "http", "url": "…", "headers": { "Authorization": "Bearer ${input:api-key}" } } } }
 * ```
 *
 * Such a file is turned into our own form (`mcpServers`) before it is checked, so every rule of
 * the config applies to it unchanged. VS Code's variables become ours: `${input:id}` its value
 * (asked in the chat, or read from `MCPHOST_INPUT_<ID>`), `${env:NAME}` `${NAME}`,
 * `${workspaceFolder}` the project folder and `${userHome}` the home folder.
 *
 * Pure: the values of the inputs are a parameter; load.ts asks for them.
 */
import * as z from 'zod';
import type { ConfigPath, Problem } from './problems.js';
import { describeKind, problemsFromError, throwIfProblems } from './problems.js';
import { isPlainObject } from './server-form.js';

/** One `promptString` input: what the chat asks for, and whether to hide what is typed. */
export interface ConfigInput {
  readonly id: string;
  readonly description?: string;
  /** Typed without echo in the chat. */
  readonly password: boolean;
  /** Used when the answer is empty (VS Code's `default`). */
  readonly defaultValue?: string;
}

const inputSchema = z.object({
  type: z.literal('promptString'),
  id: z.string().min(1),
  description: z.string().optional(),
  password: z.boolean().optional(),
  default: z.string().optional(),
});

/** True for a file in VS Code's form: `servers`, and no `mcpServers` of our own. */
export function isVsCodeForm(raw: unknown): raw is Record<string, unknown> {
  return isPlainObject(raw) && raw.servers !== undefined && raw.mcpServers === undefined;
}

/**
 * The environment variable that gives input `id` in `-p`, batches and workers (where no one is
 * asked): `MCPHOST_INPUT_` and the id in capitals, each run of other characters as one `_`
 * (`api-key` → `MCPHOST_INPUT_API_KEY`).
 */
export function inputVariableName(id: string): string {
  return `MCPHOST_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** A file's declared inputs that its servers use, in order. Throws one ConfigError line for a bad one. */
export function usedInputs(raw: Record<string, unknown>, source: string): readonly ConfigInput[] {
  const problems: Problem[] = [];
  const declared = new Map<string, ConfigInput>();
  const { inputs } = raw;
  if (inputs !== undefined && !Array.isArray(inputs)) {
    problems.push({ path: ['inputs'], message: `expected array, got ${describeKind(inputs)}` });
  }
  (Array.isArray(inputs) ? inputs : []).forEach((input: unknown, index) => {
    if (isPlainObject(input) && input.type !== undefined && input.type !== 'promptString') {
      problems.push({
        path: ['inputs', index, 'type'],
        message: `${JSON.stringify(input.type)} is not supported (mcphost asks for "promptString" inputs)`,
      });
      return;
    }
    const result = inputSchema.safeParse(input, { reportInput: true });
    if (!result.success) {
      problems.push(...problemsFromError(result.error, ['inputs', index]));
      return;
    }
    const { id, description, password, default: defaultValue } = result.data;
    if (declared.has(id)) {
      problems.push({ path: ['inputs', index, 'id'], message: `"${id}" is declared twice` });
      return;
    }
    declared.set(id, {
      id,
      password: password === true,
      ...(description === undefined ? {} : { description }),
      ...(defaultValue === undefined ? {} : { defaultValue }),
    });
  });
  const used: ConfigInput[] = [];
  visitStrings(raw.servers, ['servers'], (text, path) => {
    for (const match of text.matchAll(INPUT_REFERENCE)) {
      const id = match[1] ?? '';
      const input = declared.get(id);
      if (input === undefined) {
        problems.push({ path, message: `\${input:${id}} is not declared in "inputs"` });
      } else if (!used.includes(input)) {
        used.push(input);
      }
    }
  });
  throwIfProblems(source, problems);
  return used;
}

/** What VS Code's own variables stand for here. */
export interface VsCodeVariables {
  /** The values of the inputs, by id. An input that is not here stays written as `${input:id}`. */
  readonly inputs: ReadonlyMap<string, string>;
  /** `${workspaceFolder}`: the folder mcphost runs in. */
  readonly workspaceFolder: string;
  /** `${userHome}`. */
  readonly userHome: string;
}

/**
 * The file in our own form: `servers` as `mcpServers`, VS Code's variables replaced (see the
 * module comment), `inputs` gone. Other top-level keys are kept (they are ours, or ignored).
 */
export function fromVsCodeForm(
  raw: Record<string, unknown>,
  variables: VsCodeVariables,
): Record<string, unknown> {
  const { servers, inputs: _inputs, ...rest } = raw;
  return { ...rest, mcpServers: mapStrings(servers, (text) => replaceVariables(text, variables)) };
}

const INPUT_REFERENCE = /\$\{input:([^}]*)\}/g;
const VSCODE_VARIABLE = /\$\{(input:[^}]*|env:[^}]*|workspaceFolder|userHome)\}/g;

/** A value inserted into text that is expanded afterwards: its own `${` is kept literal. */
function literal(value: string): string {
  // A function: in a replacement string, `$$` would mean one `$`.
  return value.replaceAll('${', () => '$${');
}

function replaceVariables(text: string, variables: VsCodeVariables): string {
  return text.replace(VSCODE_VARIABLE, (written, name: string) => {
    if (name === 'workspaceFolder') return literal(variables.workspaceFolder);
    if (name === 'userHome') return literal(variables.userHome);
    if (name.startsWith('env:')) return `\${${name.slice('env:'.length)}}`;
    const value = variables.inputs.get(name.slice('input:'.length));
    // Not given (a file shown before it is trusted): kept as written, literally.
    return value === undefined ? literal(written) : literal(value);
  });
}

function visitStrings(
  value: unknown,
  path: ConfigPath,
  visit: (text: string, path: ConfigPath) => void,
): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, index) => visitStrings(item, [...path, index], visit));
  else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) visitStrings(item, [...path, key], visit);
  }
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (isPlainObject(value)) {
    // fromEntries: a server named "__proto__" stays a server.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  }
  return value;
}
