/**
 * Agents as Markdown files, one per agent, the form Claude Code users keep in `.claude/agents/`:
 * YAML front matter (`name`, `description`, `model`, `tools`…) between `---` lines, and the body as
 * the system prompt. Read from the user's `$XDG_CONFIG_HOME/mcphost/agents/` (else
 * `~/.config/mcphost/agents/`) and a trusted project's `.mcphost/agents/`.
 *
 * ```markdown
 * ---
 * name: reviewer
 * description: Reviews a change for bugs; read-only.
 * model: anthropic:claude-sonnet-4-5
 * tools: filesystem__read_*, filesystem__list_directory
 * ---
 * You review code. Report problems with file and line; change nothing.
 * ```
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type * as z from 'zod';
import { messageOf } from '../core/errors.js';
import { agentDefinition, agentEntrySchema, AGENT_NAME, type AgentDefinition } from './definition.js';

/** The front matter block: `---`, YAML, `---` on a line of its own (CRLF allowed). */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/**
 * Keys of Claude Code's agent files that mean nothing here; taken and ignored so that its files
 * load as they are (`name` is the agent's name, read before the schema).
 */
const IGNORED_KEYS = ['name', 'color', 'permissionMode'];

/** What reading the agent files found: the agents, and one line per file that is not one. */
export interface AgentFiles {
  readonly agents: readonly AgentDefinition[];
  readonly problems: readonly string[];
}

/** The agents in `folder` (`*.md`); a missing folder has none. */
export async function readAgentFolder(folder: string, scope: 'user' | 'project'): Promise<AgentFiles> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.md')).sort();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { agents: [], problems: [] };
    return { agents: [], problems: [`${folder}: cannot read the agents folder: ${messageOf(error)}`] };
  }
  const agents: AgentDefinition[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const path = join(folder, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      problems.push(`${path}: cannot read it: ${messageOf(error)}`);
      continue;
    }
    const parsed = await parseAgentFile(text, path, scope);
    if (parsed.kind === 'agent') agents.push(parsed.agent);
    else problems.push(parsed.problem);
  }
  return { agents, problems };
}

/** One agent file, or one line saying what is wrong with it (file and key). */
export async function parseAgentFile(
  text: string,
  path: string,
  scope: 'user' | 'project',
): Promise<{ kind: 'agent'; agent: AgentDefinition } | { kind: 'invalid'; problem: string }> {
  const invalid = (detail: string) => ({ kind: 'invalid' as const, problem: `${path}: ${detail}` });
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FRONT_MATTER.exec(unmarked);
  if (match === null) return invalid('no front matter (an agent file starts with a "---" line)');
  // Loaded with the first file, not with this module (as skill-file.ts says why).
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(match[1] ?? '');
  } catch (error) {
    return invalid(`the front matter is not YAML: ${messageOf(error).split('\n')[0] ?? ''}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return invalid('the front matter is not a YAML mapping');
  }
  const frontMatter = data as Record<string, unknown>;
  const name = frontMatter.name ?? basename(path, '.md');
  if (typeof name !== 'string' || !AGENT_NAME.test(name)) {
    return invalid(`name: ${JSON.stringify(name)} is not an agent name (1-64 letters, digits, "_" or "-")`);
  }
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(frontMatter)) {
    // In YAML, `model:` with nothing after it is null: the same as not writing the key.
    if (!IGNORED_KEYS.includes(key) && value !== null) entry[key] = value;
  }
  const body = unmarked.slice(match[0].length).trim();
  if (body !== '' && entry.systemPrompt === undefined) entry.systemPrompt = body;
  const checked = agentEntrySchema.safeParse(entry);
  if (!checked.success) return invalid(firstIssue(checked.error));
  return { kind: 'agent', agent: agentDefinition(name, checked.data, { kind: 'file', path, scope }) };
}

/** `tools: expected…`: the key and what is wrong with it, in one line. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const key = issue.path.map(String).join('.');
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
      : issue.message;
  return key === '' ? message : `${key}: ${message}`;
}
