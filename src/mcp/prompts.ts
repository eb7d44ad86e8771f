/**
 * Prompts: message templates a server offers (`prompts/list`, `prompts/get`). A user invokes one
 * as `/server:prompt [args]`; its messages become the user's turn.
 */
import type { Client, GetPromptResult, PromptArgument } from '@modelcontextprotocol/client';
import { ConfigError, ServerError, messageOf } from '../core/errors.js';
import type { UserContent } from '../core/types.js';
import { toBlock } from './content.js';
import { resourceBlocks, type ServerClients } from './resources.js';
import { definedProperties } from '../util/defined-properties.js';

/** One prompt a server lists. */
export interface PromptEntry {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgument[];
}

/** Lists the prompts of `server`, or of every server that offers prompts (failures left out). */
export async function listPrompts(
  pool: ServerClients,
  server?: string,
  signal?: AbortSignal,
): Promise<readonly PromptEntry[]> {
  const servers = server === undefined ? pool.serverNames() : [server];
  const lists = await Promise.all(
    servers.map(async (name) => {
      try {
        return await listServerPrompts(await pool.client(name, signal), name, signal);
      } catch (error) {
        if (server !== undefined) throw error;
        return [];
      }
    }),
  );
  return lists.flat();
}

async function listServerPrompts(
  client: Client,
  server: string,
  signal: AbortSignal | undefined,
): Promise<PromptEntry[]> {
  if (client.getServerCapabilities()?.prompts === undefined) return [];
  try {
    const { prompts } = await client.listPrompts(undefined, signal === undefined ? {} : { signal });
    return prompts.map((prompt) => ({
      server,
      name: prompt.name,
      ...definedProperties({ title: prompt.title, description: prompt.description }),
      arguments: prompt.arguments ?? [],
    }));
  } catch (error) {
    throw new ServerError(server, `server "${server}" could not list its prompts: ${messageOf(error)}`, [], {
      cause: error,
    });
  }
}

/**
 * Arguments given to a prompt that do not fit it (a missing required one, too many): bad input,
 * so a ConfigError (exit 2 in `-p`) whose source is the prompt.
 */
export class PromptArgumentsError extends ConfigError {
  constructor(prompt: PromptEntry, detail: string) {
    super(`prompt /${prompt.server}:${prompt.name}`, `${detail}; it takes ${describeArguments(prompt)}`);
  }
}

/** The prompt's arguments on one line: `city (required: Name of the city), state (Name of the state)`. */
export function describeArguments(prompt: PromptEntry): string {
  if (prompt.arguments.length === 0) return 'no arguments';
  return prompt.arguments
    .map((argument) => {
      const notes = [
        ...(argument.required === true ? ['required'] : []),
        ...(argument.description === undefined ? [] : [argument.description]),
      ];
      return notes.length === 0 ? argument.name : `${argument.name} (${notes.join(': ')})`;
    })
    .join(', ');
}

/**
 * Splits `a=1 "b c" d='e f'` into words, keeping quoted spaces. Hand-written: a shell-words
 * package would also expand `$VAR` and globs, which a prompt argument must not.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /(?:[^\s"']+|"[^"]*"|'[^']*')+/g;
  for (const match of text.matchAll(pattern)) words.push(match[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'));
  return words;
}

/**
 * Matches words to a prompt's arguments: `name=value` by name, the rest in order into the
 * arguments not named. Missing required arguments are returned, not thrown (the chat asks them).
 */
export function bindPromptArguments(
  prompt: PromptEntry,
  words: readonly string[],
): { readonly values: Record<string, string>; readonly missing: readonly PromptArgument[] } {
  const values: Record<string, string> = {};
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  const positional: string[] = [];
  for (const word of words) {
    const equals = word.indexOf('=');
    const name = equals > 0 ? word.slice(0, equals) : undefined;
    if (name !== undefined && known.has(name)) values[name] = word.slice(equals + 1);
    else positional.push(word);
  }
  for (const argument of prompt.arguments) {
    if (values[argument.name] !== undefined) continue;
    const next = positional.shift();
    if (next === undefined) break;
    values[argument.name] = next;
  }
  if (positional.length > 0) {
    throw new PromptArgumentsError(
      prompt,
      `too many arguments (${positional.map((word) => `"${word}"`).join(', ')} left over)`,
    );
  }
  const missing = prompt.arguments.filter(
    (argument) => argument.required === true && values[argument.name] === undefined,
  );
  return { values, missing };
}

/** Gets a prompt with its arguments. Throws ServerError when the server refuses. */
export async function getPrompt(
  pool: ServerClients,
  server: string,
  name: string,
  values: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<GetPromptResult> {
  const client = await pool.client(server, signal);
  try {
    return await client.getPrompt({ name, arguments: { ...values } }, signal === undefined ? {} : { signal });
  } catch (error) {
    throw new ServerError(
      server,
      `server "${server}" could not get prompt "${name}": ${messageOf(error)}`,
      [],
      {
        cause: error,
      },
    );
  }
}

/**
 * A prompt's messages as one user turn. Messages in the assistant's role are kept as text marked
 * as such: the turn is the user's, and a provider would reject a made-up assistant message here.
 * With `markAsData`, an embedded text resource is wrapped in `<untrusted-resource>` tags (the
 * prompt's own text is what the user chose to send, so it stays as it is; the detector still
 * screens it).
 */
export function promptContent(
  result: GetPromptResult,
  options: { readonly server?: string; readonly markAsData?: boolean } = {},
): UserContent[] {
  const content: UserContent[] = [];
  for (const message of result.messages) {
    const embedded = message.content.type === 'resource' ? message.content.resource : undefined;
    if (options.markAsData === true && embedded !== undefined && 'text' in embedded) {
      content.push(...resourceBlocks(options.server ?? '', { contents: [embedded] }, { markAsData: true }));
      continue;
    }
    const block = toBlock(message.content);
    if (message.role === 'assistant' && block.type === 'text') {
      content.push({ type: 'text', text: `(assistant) ${block.text}` });
    } else {
      content.push(block);
    }
  }
  return content;
}
