/**
 * Tab completion for readline: command names after `/`, and provider names after `/model `; with
 * servers, also what they offer (see offerings-completion.ts).
 * Returns readline's `[candidates, the part of the line they complete]`.
 */
import { KNOWN_PROVIDERS } from '../../../providers/index.js';
import { SLASH_COMMANDS } from './slash-commands.js';
import { completeOfferings, type CompletionSource } from './offerings-completion.js';
import { completePathMention } from './path-completion.js';
import type { Completion } from './completion-candidates.js';

export type { Completion } from './completion-candidates.js';

/** `models` are offered after `/model ` too (the model in use, say). */
export function completeLine(line: string, models: readonly string[] = []): Completion {
  const model = /^\/model\s+(\S*)$/i.exec(line);
  if (model !== null) {
    const partial = model[1] ?? '';
    const candidates = [...new Set([...models, ...KNOWN_PROVIDERS.map((provider) => `${provider}:`)])];
    return [candidates.filter((candidate) => candidate.startsWith(partial)), partial];
  }
  if (/^\/\S*$/.test(line)) {
    const lower = line.toLowerCase();
    const names = SLASH_COMMANDS.map((command) => command.name).filter((name) => name.startsWith(lower));
    // A lone match gets a space, ready for its argument (readline adds none itself).
    const withArgument = new Set(
      SLASH_COMMANDS.filter((command) => command.argument).map((command) => command.name),
    );
    const only = names.length === 1 ? names[0] : undefined;
    if (only !== undefined && withArgument.has(only)) return [[`${only} `], line];
    return [names, line];
  }
  return [[], line];
}

/**
 * The chat's Tab: {@link completeLine}, and what the servers offer when `offerings` is given —
 * `@server:uri`, prompt names beside the commands after `/`, prompt argument values.
 */
export async function completeChatLine(
  line: string,
  models: readonly string[],
  offerings: CompletionSource | undefined,
): Promise<Completion> {
  // `@path` is never `@server:uri` (no colon before a slash), so it goes first, servers or not.
  const path = await completePathMention(line);
  if (path !== undefined) return path;
  const local = completeLine(line, models);
  if (offerings === undefined) return local;
  const served = await completeOfferings(offerings, line);
  if (served === undefined) return local;
  if (!/^\/\S*$/.test(line)) return served;
  // After a lone `/word`, commands and prompt names together.
  const candidates = [...local[0], ...served[0]];
  if (candidates.length === 1) return [candidates, line];
  return [candidates.map((candidate) => candidate.trimEnd()), line];
}
