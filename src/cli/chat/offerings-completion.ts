/**
 * Tab completion for what servers offer: `@server:uri` (servers, resource URIs, and template
 * variables through `completion/complete`), `/server:prompt` names, and prompt argument values
 * (through `completion/complete`, with the arguments already given as context).
 *
 * Listings come from the offerings catalog (kept until a server says a list changed); only values
 * are asked of a server, and ChatInput bounds how long a Tab may wait for them.
 */
import type { CompletionRequest, CompletionResult } from '../../mcp/completion.js';
import type { OfferingsCatalog } from '../../mcp/offerings-catalog.js';
import { bindPromptArguments, splitWords, type PromptEntry } from '../../mcp/prompts.js';
import type { ResourceTemplateEntry } from '../../mcp/resources.js';
import { matchTemplate } from './template-match.js';
import type { Completion } from './completion-candidates.js';

/** The part of `runner.mcp` completion uses. */
export interface CompletionSource {
  serverNames(): readonly string[];
  catalog(): Promise<OfferingsCatalog>;
  complete(
    request: CompletionRequest,
    options?: { readonly signal?: AbortSignal },
  ): Promise<CompletionResult>;
}

/**
 * Completes the end of `line` when it is about server offerings; undefined when it is not (the
 * chat's own completion applies). A server that fails to suggest values adds none.
 */
export async function completeOfferings(
  source: CompletionSource,
  line: string,
  signal?: AbortSignal,
): Promise<Completion | undefined> {
  const servers = source.serverNames();
  if (servers.length === 0) return undefined;
  const mention = /(?:^|\s)(@[^\s@]*)$/.exec(line)?.[1];
  if (mention !== undefined) return completeMention(source, mention, signal);
  const promptName = /^\/([^\s/]*)$/.exec(line);
  if (promptName !== null) {
    const prompts = (await source.catalog()).prompts;
    const names = prompts
      .map((prompt) => `/${prompt.server}:${prompt.name}`)
      .filter((name) => name.startsWith(line));
    return [names.length === 1 ? [`${names[0] ?? ''} `] : names, line];
  }
  const invocation = /^\/([^\s:/]+):(\S+)\s+([\s\S]*)$/.exec(line);
  if (invocation !== null && servers.includes(invocation[1] ?? '')) {
    const [, server = '', name = '', rest = ''] = invocation;
    const prompt = (await source.catalog()).prompts.find(
      (entry) => entry.server === server && entry.name === name,
    );
    if (prompt === undefined) return [[], line];
    return completePromptArgument(source, prompt, rest, signal);
  }
  return undefined;
}

/**
 * Values for a required prompt argument the chat asks for, given the values already bound: the
 * completer of that question.
 */
export async function completeAskedArgument(
  source: CompletionSource,
  prompt: PromptEntry,
  argument: string,
  given: Readonly<Record<string, string>>,
  partial: string,
  signal?: AbortSignal,
): Promise<Completion> {
  const values = await suggest(
    source,
    {
      server: prompt.server,
      ref: { type: 'prompt', name: prompt.name },
      argument: { name: argument, value: partial },
      context: { arguments: given },
    },
    signal,
  );
  return [values.filter((value) => value.startsWith(partial)), partial];
}

async function completeMention(
  source: CompletionSource,
  word: string,
  signal?: AbortSignal,
): Promise<Completion> {
  const colon = word.indexOf(':');
  const catalog = await source.catalog();
  if (colon < 0) {
    // Servers with something to attach.
    const offering = new Set([...catalog.resources, ...catalog.templates].map((entry) => entry.server));
    const candidates = source
      .serverNames()
      .filter((server) => offering.has(server))
      .map((server) => `@${server}:`)
      .filter((candidate) => candidate.startsWith(word));
    return [candidates, word];
  }
  const server = word.slice(1, colon);
  const partial = word.slice(colon + 1);
  const prefix = `@${server}:`;
  const uris = catalog.resources
    .filter((resource) => resource.server === server && resource.uri.startsWith(partial))
    .map((resource) => resource.uri);
  const templates = catalog.templates.filter((template) => template.server === server);
  const fromTemplates = await Promise.all(
    templates.map((template) => completeTemplate(source, template, partial, signal)),
  );
  const candidates = [...new Set([...uris, ...fromTemplates.flat()])].map((uri) => `${prefix}${uri}`);
  return [candidates, word];
}

/** What a template offers for a partly typed URI: the rest of its fixed text, or variable values. */
async function completeTemplate(
  source: CompletionSource,
  template: ResourceTemplateEntry,
  partial: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const match = matchTemplate(template.uriTemplate, partial);
  switch (match.kind) {
    case 'none':
      return [];
    case 'literal':
      return [match.completion];
    case 'variable': {
      const values = await suggest(
        source,
        {
          server: template.server,
          ref: { type: 'resource-template', uriTemplate: template.uriTemplate },
          argument: { name: match.name, value: match.value },
          context: { arguments: match.given },
        },
        signal,
      );
      return values
        .filter((value) => value.startsWith(match.value))
        .map((value) => `${match.before}${value}`);
    }
    default: {
      const unexpected: never = match;
      throw new TypeError(`unknown template match ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * The word being typed after `/server:prompt`: `name=val` completes that argument's value; a bare
 * word completes the next argument in order, and also offers `name=` for the arguments not given.
 */
async function completePromptArgument(
  source: CompletionSource,
  prompt: PromptEntry,
  rest: string,
  signal?: AbortSignal,
): Promise<Completion> {
  const current = /(\S*)$/.exec(rest)?.[1] ?? '';
  const before = splitWords(rest.slice(0, rest.length - current.length));
  let given: Record<string, string>;
  try {
    given = bindPromptArguments(prompt, before).values;
  } catch {
    return [[], current]; // Too many words already: nothing fits.
  }
  const equals = current.indexOf('=');
  const named =
    equals > 0 ? prompt.arguments.find((argument) => argument.name === current.slice(0, equals)) : undefined;
  const argument = named ?? prompt.arguments.find((candidate) => given[candidate.name] === undefined);
  if (argument === undefined) return [[], current];
  const typed = named === undefined ? current : current.slice(equals + 1);
  const lead = named === undefined ? '' : `${named.name}=`;
  const values = await suggest(
    source,
    {
      server: prompt.server,
      ref: { type: 'prompt', name: prompt.name },
      argument: { name: argument.name, value: typed },
      context: { arguments: given },
    },
    signal,
  );
  const candidates = values.filter((value) => value.startsWith(typed)).map((value) => `${lead}${value}`);
  if (named === undefined) {
    for (const candidate of prompt.arguments) {
      const assignment = `${candidate.name}=`;
      if (given[candidate.name] === undefined && assignment.startsWith(current)) candidates.push(assignment);
    }
  }
  return [candidates, current];
}

async function suggest(
  source: CompletionSource,
  request: CompletionRequest,
  signal?: AbortSignal,
): Promise<readonly string[]> {
  try {
    return (await source.complete(request, signal === undefined ? {} : { signal })).values;
  } catch {
    return []; // A failing server makes no suggestion; Tab is no place for its error.
  }
}
