/**
 * The tool-search tool: when there are too many tool definitions to send at every step, the model
 * gets this one tool instead, finds the tools it needs by keywords, and the ones found are loaded
 * (sent from the next step on). This file holds the tool's definition and the search itself.
 *
 * Hand-written rather than a search library (MiniSearch, Fuse.js): the catalog is a few hundred
 * short entries, the ranking needs one rule that libraries do not have (a word of the tool's own
 * name counts more than a word of its description), and the whole thing is a scoring loop.
 */
import type { ToolSpec } from '../core/types.js';

/**
 * The name of the search tool. It has no `__`, so it can never be the name of a server's tool
 * (those are always `server__tool`).
 */
export const TOOL_SEARCH_NAME = 'tool_search';

/** Tools loaded by one search when the model does not say how many. */
export const DEFAULT_SEARCH_RESULTS = 5;

/** The most tools one search may load. */
export const MAX_SEARCH_RESULTS = 20;

/** A found tool's description is cut to this many characters in the search result. */
const DESCRIPTION_PREVIEW = 240;

/** The search tool's definition, as sent to the model. */
export function toolSearchSpec(availableTools: number): ToolSpec {
  return {
    name: TOOL_SEARCH_NAME,
    description:
      `Finds tools and loads them. ${availableTools} tools are available but their definitions are not ` +
      'sent until loaded, to save context. Search with keywords of what you want to do or of the tool ' +
      "name (e.g. 'read file', 'github issue'), or with exact tool names. The tools found are loaded: " +
      'call them from your next step. Tools you loaded stay loaded for the rest of the conversation.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'Keywords, or exact tool names, separated by spaces.',
        },
        limit: {
          type: 'integer',
          description: `How many tools to load at most, 1 to ${MAX_SEARCH_RESULTS}. Default ${DEFAULT_SEARCH_RESULTS}.`,
        },
      },
      required: ['query'],
    },
  };
}

/** The search request, read from the model's arguments; a string saying what is wrong otherwise. */
export function readSearchInput(
  input: Readonly<Record<string, unknown>>,
): { readonly query: string; readonly limit: number } | string {
  const { query, limit } = input;
  if (typeof query !== 'string' || query.trim() === '') {
    return `${TOOL_SEARCH_NAME} needs "query": keywords or tool names, as a string.`;
  }
  if (limit === undefined) return { query, limit: DEFAULT_SEARCH_RESULTS };
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    return `${TOOL_SEARCH_NAME}: "limit" must be a whole number from 1 to ${MAX_SEARCH_RESULTS}.`;
  }
  return { query, limit: Math.min(limit, MAX_SEARCH_RESULTS) };
}

/** The words of a name or text, lower case: `fs__read_file` and `readFile` both give `read`, `file`. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** One word of the query against one word of a tool: whole word, or a shared start of 4+ letters. */
function wordMatches(queryWord: string, toolWord: string): boolean {
  if (queryWord === toolWord) return true;
  if (queryWord.length < 4 || toolWord.length < 4) return false;
  // "files" finds "file", "search" finds "searching".
  return toolWord.startsWith(queryWord) || queryWord.startsWith(toolWord);
}

/** Points for a word of the query found in the tool's name, and in its description. */
const NAME_POINTS = 3;
const DESCRIPTION_POINTS = 1;

interface IndexedTool {
  readonly tool: ToolSpec;
  readonly nameWords: readonly string[];
  readonly descriptionWords: ReadonlySet<string>;
}

/** The catalog to search, indexed once per list of tools. */
export class ToolIndex {
  readonly #tools: readonly IndexedTool[];
  readonly #byName: ReadonlyMap<string, ToolSpec>;

  constructor(tools: readonly ToolSpec[]) {
    this.#tools = tools.map((tool) => ({
      tool,
      nameWords: wordsOf(tool.name),
      descriptionWords: new Set(wordsOf(tool.description)),
    }));
    this.#byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  get size(): number {
    return this.#tools.length;
  }

  /** The tool of that exact name, if it is in the catalog. */
  get(name: string): ToolSpec | undefined {
    return this.#byName.get(name);
  }

  /**
   * The best `limit` tools for `query`: exact names first (in the query's order), then by points
   * (ties: the catalog's order). Tools with no point are not returned.
   */
  search(query: string, limit: number): ToolSpec[] {
    const found: ToolSpec[] = [];
    const seen = new Set<string>();
    for (const token of query.split(/[\s,]+/)) {
      const exact = this.#byName.get(token);
      if (exact !== undefined && !seen.has(exact.name)) {
        found.push(exact);
        seen.add(exact.name);
      }
    }
    const queryWords = [...new Set(wordsOf(query))];
    const scored: Array<{ tool: ToolSpec; points: number; order: number }> = [];
    this.#tools.forEach((entry, order) => {
      if (seen.has(entry.tool.name)) return;
      let points = 0;
      for (const word of queryWords) {
        if (entry.nameWords.some((nameWord) => wordMatches(word, nameWord))) points += NAME_POINTS;
        if (entry.descriptionWords.has(word)) points += DESCRIPTION_POINTS;
        else if (word.length >= 4) {
          for (const descriptionWord of entry.descriptionWords) {
            if (wordMatches(word, descriptionWord)) {
              points += DESCRIPTION_POINTS;
              break;
            }
          }
        }
      }
      if (points > 0) scored.push({ tool: entry.tool, points, order });
    });
    scored.sort((a, b) => b.points - a.points || a.order - b.order);
    for (const { tool } of scored) found.push(tool);
    return found.slice(0, limit);
  }
}

/** What the model reads back from a search. */
export function searchResultText(query: string, found: readonly ToolSpec[], available: number): string {
  if (found.length === 0) {
    return (
      `No tool matched "${query}". ${available} tools are available: try other words ` +
      '(what the tool does, or part of its name).'
    );
  }
  const lines = found.map((tool) => {
    const description = tool.description.replace(/\s+/g, ' ').trim();
    const preview =
      description.length > DESCRIPTION_PREVIEW
        ? `${description.slice(0, DESCRIPTION_PREVIEW)}…`
        : description;
    return `- ${tool.name}${preview === '' ? '' : `: ${preview}`}`;
  });
  const noun = found.length === 1 ? 'tool' : 'tools';
  return `Loaded ${found.length} ${noun}; you can call ${found.length === 1 ? 'it' : 'them'} from your next step:\n${lines.join('\n')}`;
}
