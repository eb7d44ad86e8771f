/**
 * What a user types, turned into a user turn with the servers' help: `/server:prompt [args]` at the
 * start gets that prompt's messages, and every `@server:uri` attaches that resource's contents.
 * Used by `-p` and the chat alike, so both read the same syntax the same way.
 */
import type { PromptArgument } from '@modelcontextprotocol/client';
import { ServerError } from '../core/errors.js';
import type { ContentOrigin, ContentScreen } from '../safety/untrusted-content.js';
import type { UserContent } from '../core/types.js';
import {
  bindPromptArguments,
  getPrompt,
  listPrompts,
  PromptArgumentsError,
  promptContent,
  splitWords,
  type PromptEntry,
} from './prompts.js';
import { readResource, resourceBlocks, type ServerClients } from './resources.js';

/** A `/server:prompt` invocation found at the start of the input. */
export interface PromptInvocation {
  readonly server: string;
  readonly prompt: string;
  /** The words after the prompt name (quotes removed). */
  readonly words: readonly string[];
}

/** An `@server:uri` mention. */
export interface ResourceMention {
  readonly server: string;
  readonly uri: string;
}

/** Options of {@link expandUserTurn}. */
export interface ExpandUserTurnOptions {
  readonly signal?: AbortSignal;
  /**
   * Asks for a required prompt argument that was not given (the chat). Without it a missing
   * required argument is a {@link PromptArgumentsError}.
   */
  readonly askArgument?: (
    prompt: PromptEntry,
    argument: PromptArgument,
    /** The values bound so far (context for completing this one). */
    given: Readonly<Record<string, string>>,
  ) => Promise<string>;
  /**
   * Screens each resource's and the prompt's content (injection detector and policy) before it
   * joins the turn; content it withholds is replaced by a note saying so.
   */
  readonly screen?: ContentScreen;
  /** Mark resources, attached or embedded in a prompt, as data from outside (`<untrusted-resource>`). */
  readonly markAsData?: boolean;
}

/** The expanded turn, and one line per thing fetched (for the user to see what was added). */
export interface ExpandedUserTurn {
  readonly content: readonly UserContent[];
  readonly notes: readonly string[];
  /** The resources attached with `@server:uri` (empty for a prompt or plain text). */
  readonly attached: readonly ResourceMention[];
}

/** `/server:prompt …` when `server` is a configured server; otherwise undefined (not ours). */
export function parsePromptInvocation(
  text: string,
  servers: readonly string[],
): PromptInvocation | undefined {
  const match = /^\/([^\s:/]+):(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (match?.[1] === undefined || match[2] === undefined || !servers.includes(match[1])) return undefined;
  return { server: match[1], prompt: match[2], words: splitWords(match[3] ?? '') };
}

/**
 * Every `@server:uri` whose server is configured (an e-mail address or a handle is left alone).
 * Trailing sentence punctuation is not part of the URI.
 */
export function findResourceMentions(text: string, servers: readonly string[]): ResourceMention[] {
  const mentions: ResourceMention[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([^\s:@]+):(\S+)/g)) {
    const server = match[1];
    const uri = match[2]?.replace(/[.,;!?)]+$/, '');
    if (server === undefined || uri === undefined || uri === '' || !servers.includes(server)) continue;
    if (!mentions.some((mention) => mention.server === server && mention.uri === uri)) {
      mentions.push({ server, uri });
    }
  }
  return mentions;
}

/**
 * Expands `text` into a user turn. Throws ServerError for a resource that cannot be read or an
 * unknown prompt, and PromptArgumentsError for arguments that do not fit (unless `askArgument`
 * fills the missing ones).
 */
export async function expandUserTurn(
  pool: ServerClients,
  text: string,
  options: ExpandUserTurnOptions = {},
): Promise<ExpandedUserTurn> {
  const servers = pool.serverNames();
  const invocation = parsePromptInvocation(text, servers);
  if (invocation !== undefined) return expandPrompt(pool, invocation, options);
  const mentions = findResourceMentions(text, servers);
  if (mentions.length === 0) return { content: [{ type: 'text', text }], notes: [], attached: [] };
  const reads = await Promise.all(
    mentions.map(async (mention) => ({
      mention,
      result: await readResource(pool, mention.server, mention.uri, options.signal),
    })),
  );
  // Screened one at a time, in order: under `ask` each is its own question.
  const screened: Array<{ blocks: readonly UserContent[]; note: string }> = [];
  for (const { mention, result } of reads) {
    const blocks = resourceBlocks(mention.server, result, { markAsData: options.markAsData === true });
    const outcome = await screenContent(options, blocks, {
      kind: 'resource',
      server: mention.server,
      uri: mention.uri,
    });
    const verb = outcome.withheld ? 'withheld' : 'attached';
    screened.push({ blocks: outcome.content, note: `${verb} @${mention.server}:${mention.uri}` });
  }
  return {
    content: [{ type: 'text', text }, ...screened.flatMap(({ blocks }) => blocks)],
    notes: screened.map(({ note }) => note),
    attached: mentions,
  };
}

/** The content through the screen, when there is one. */
async function screenContent(
  options: ExpandUserTurnOptions,
  content: readonly UserContent[],
  origin: ContentOrigin,
): Promise<{ content: readonly UserContent[]; withheld: boolean }> {
  if (options.screen === undefined) return { content, withheld: false };
  return options.screen(content, origin, options.signal ?? new AbortController().signal);
}

async function expandPrompt(
  pool: ServerClients,
  invocation: PromptInvocation,
  options: ExpandUserTurnOptions,
): Promise<ExpandedUserTurn> {
  const { server, prompt: name, words } = invocation;
  const prompts = await listPrompts(pool, server, options.signal);
  const prompt = prompts.find((candidate) => candidate.name === name);
  if (prompt === undefined) {
    const offered = prompts.map((candidate) => candidate.name).join(', ') || 'none';
    throw new ServerError(server, `server "${server}" has no prompt "${name}" (its prompts: ${offered})`);
  }
  const { values, missing } = bindPromptArguments(prompt, words);
  for (const argument of missing) {
    if (options.askArgument === undefined) {
      throw new PromptArgumentsError(prompt, `missing required argument "${argument.name}"`);
    }
    values[argument.name] = await options.askArgument(prompt, argument, { ...values });
  }
  const result = await getPrompt(pool, server, name, values, options.signal);
  const content = promptContent(result, { server, markAsData: options.markAsData === true });
  const outcome = await screenContent(options, content, { kind: 'prompt', server, prompt: name });
  return {
    content: outcome.content,
    notes: [`${outcome.withheld ? 'withheld' : 'prompt'} /${server}:${name}`],
    attached: [],
  };
}
