/**
 * From the text of a config file to plain data, with syntax errors as one-line ConfigErrors that
 * say where (`invalid JSON at line 3, column 5: unexpected "}" (expected a value)`).
 */
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type * as Cosmiconfig from 'cosmiconfig';
import * as z from 'zod';
import { ConfigError, messageOf } from '../src/core/errors.js';
import { findJsonSyntaxProblem } from './json-syntax.js';

/** The syntaxes a config file may use. */
export type ConfigSyntax = 'json' | 'yaml';

/** What a config text holds. `empty` is true for a file of only whitespace (it means "no settings"). */
export interface ParsedText {
  readonly value: unknown;
  readonly empty: boolean;
}

/**
 * The syntax a file's name announces: `.json`, or `.yml` / `.yaml`. `undefined` for any other name,
 * whose content decides (see {@link parseConfigText}).
 */
export function syntaxOfPath(path: string): ConfigSyntax | undefined {
  switch (extname(path).toLowerCase()) {
    case '.json':
      return 'json';
    case '.yml':
    case '.yaml':
      return 'yaml';
    default:
      return undefined;
  }
}

/**
 * cosmiconfig (CommonJS) loaded on the first YAML file, not with the module: it and its
 * dependencies cost about 60 ms of start-up, and most configs are JSON.
 */
function yamlLoader(): (typeof Cosmiconfig.defaultLoadersSync)['.yaml'] {
  const cosmiconfig = createRequire(import.meta.url)('cosmiconfig') as typeof Cosmiconfig;
  return cosmiconfig.defaultLoadersSync['.yaml'];
}

/** What js-yaml puts on the errors it throws: `mark` is 0-based. */
const yamlErrorShape = z.object({
  reason: z.string(),
  mark: z.object({ line: z.number(), column: z.number() }).optional(),
});

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const problem = findJsonSyntaxProblem(text);
    // The scanner follows the same grammar; should it ever disagree, JSON.parse still has the last word.
    const where = problem === undefined ? '' : ` at line ${problem.line}, column ${problem.column}`;
    const reason = problem?.reason ?? messageOf(error);
    throw new ConfigError(source, `invalid JSON${where}: ${oneLine(reason)}`, { cause: error });
  }
}

function parseYaml(text: string, source: string): unknown {
  // cosmiconfig's YAML loader is js-yaml 4 (YAML 1.2 core schema, no executable tags).
  try {
    return yamlLoader()(source, text) as unknown;
  } catch (error) {
    const shape = yamlErrorShape.safeParse(error);
    if (!shape.success) {
      const message = messageOf(error);
      throw new ConfigError(source, `invalid YAML: ${oneLine(message)}`, { cause: error });
    }
    const { reason, mark } = shape.data;
    const where = mark === undefined ? '' : ` at line ${mark.line + 1}, column ${mark.column + 1}`;
    throw new ConfigError(source, `invalid YAML${where}: ${oneLine(reason)}`, { cause: error });
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * Parses a config text. With no declared syntax, a text whose first character is `{` is JSON and
 * anything else YAML: JSON errors are then reported as JSON errors, not as YAML's view of them.
 * A leading byte-order mark (left by some Windows editors) is ignored.
 */
export function parseConfigText(text: string, source: string, syntax: ConfigSyntax | undefined): ParsedText {
  const content = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (content.trim() === '') return { value: undefined, empty: true };
  const chosen = syntax ?? (content.trimStart().startsWith('{') ? 'json' : 'yaml');
  const value = chosen === 'json' ? parseJson(content, source) : parseYaml(content, source);
  return { value, empty: false };
}
