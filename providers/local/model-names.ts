/**
 * What follows `local:` in a model string: a Hugging Face URI (as node-llama-cpp resolves them), a
 * GGUF file on disk, or a short name for one of a few recommended tool-calling models. Parsing is
 * pure and needs no network: the download (providers/local/model-files.ts) resolves the rest.
 */
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../../src/core/errors.js';

/** A model that `local:` names, once parsed. */
export type LocalModelReference =
  | {
      readonly kind: 'hugging-face-quant';
      /** The canonical URI, `hf:owner/repo:QUANT` (`:latest` when no tag was given). */
      readonly uri: string;
      readonly owner: string;
      readonly repository: string;
      /** The quantization or tag the repository's manifest resolves to a file (`Q4_K_M`, `latest`). */
      readonly tag: string;
      /** The short name it came from (`qwen3-1.7b`), when it came from one. */
      readonly shortName?: string;
    }
  | {
      readonly kind: 'hugging-face-file';
      /** The canonical URI, `hf:owner/repo/path/file.gguf` (`#branch` when not `main`). */
      readonly uri: string;
      readonly owner: string;
      readonly repository: string;
      /** The file's path inside the repository. */
      readonly filePath: string;
      readonly branch: string;
      readonly shortName?: string;
    }
  | {
      readonly kind: 'file';
      /** The absolute path of a GGUF file the user has. */
      readonly path: string;
    };

/** A recommended model: a short name for a Hugging Face URI, with what a user needs to choose. */
export interface ShortModelName {
  readonly name: string;
  readonly uri: string;
  /** The download size, roughly, for `mcphost models` and the docs. */
  readonly approximateSize: string;
  readonly description: string;
}

/**
 * The short names. Every one is a native tool caller (node-llama-cpp's recommended list marks
 * Qwen 3, Llama 3.2 and the like `functionCalling`; Qwen 2.5 Instruct was trained for tool calls)
 * at Q4_K_M, the usual balance of size and quality. The official Qwen/Qwen3-1.7B-GGUF repository
 * carries only Q8_0, so the 1.7B quantization comes from unsloth's repository of the same model.
 */
export const SHORT_MODEL_NAMES: readonly ShortModelName[] = [
  {
    name: 'qwen3-1.7b',
    uri: 'hf:unsloth/Qwen3-1.7B-GGUF:Q4_K_M',
    approximateSize: '1.1 GB',
    description: 'Qwen 3 1.7B: the default; small, calls tools, thinks before answering',
  },
  {
    name: 'qwen3-4b',
    uri: 'hf:Qwen/Qwen3-4B-GGUF:Q4_K_M',
    approximateSize: '2.5 GB',
    description: 'Qwen 3 4B: better answers and tool use, twice the memory',
  },
  {
    name: 'llama3.2-3b',
    uri: 'hf:mradermacher/Llama-3.2-3B-Instruct-GGUF:Q4_K_M',
    approximateSize: '2.0 GB',
    description: 'Llama 3.2 3B Instruct: calls tools, no thinking segment',
  },
  {
    name: 'qwen2.5-3b',
    uri: 'hf:Qwen/Qwen2.5-3B-Instruct-GGUF/qwen2.5-3b-instruct-q4_k_m.gguf',
    approximateSize: '2.1 GB',
    description: 'Qwen 2.5 3B Instruct: calls tools, no thinking segment',
  },
  {
    name: 'qwen3-0.6b',
    uri: 'hf:Qwen/Qwen3-0.6B-GGUF:Q8_0',
    approximateSize: '0.6 GB',
    description: 'Qwen 3 0.6B: the smallest; weaker at choosing tools',
  },
];

/**
 * The model used when nothing is configured: the smallest short name that calls tools reliably.
 * Why this one is written in docs/design.md ("The default local model").
 */
export const DEFAULT_LOCAL_MODEL = 'qwen3-1.7b';

/** The forms `local:` accepts, for error messages. */
export const LOCAL_MODEL_FORMS =
  'a short name (' +
  SHORT_MODEL_NAMES.map((entry) => entry.name).join(', ') +
  '), hf:owner/repo:QUANT, hf:owner/repo/file.gguf, or a path to a .gguf file';

export interface ParseLocalModelOptions {
  /** Where the name came from (`--model`, `model` in a config file), for the error message. */
  readonly source: string;
  /** The folder relative paths are resolved against. */
  readonly cwd: string;
  /** The home folder, for `~/models/x.gguf` (the shell does not expand `-m local:~/…`). */
  readonly homeDir?: string;
}

const HUGGING_FACE_PREFIXES = ['hf://', 'huggingface://', 'hf:', 'huggingface:'] as const;

/** A Hugging Face user, organisation or repository name: what the Hub itself allows. */
const HUB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** A quantization or tag, as `Q4_K_M`, `IQ2_XXS`, `f16`, `latest`. */
const TAG = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Parses what follows `local:`. Throws a one-line ConfigError naming `source` and the accepted forms. */
export function parseLocalModelName(text: string, options: ParseLocalModelOptions): LocalModelReference {
  const name = text.trim();
  const bad = (why: string): ConfigError =>
    new ConfigError(options.source, `local model "${text}" ${why}; use ${LOCAL_MODEL_FORMS}`);
  if (name === '') throw bad('is empty');
  const prefix = HUGGING_FACE_PREFIXES.find((candidate) => name.toLowerCase().startsWith(candidate));
  if (prefix !== undefined) return parseHuggingFace(name.slice(prefix.length), bad);
  if (looksLikePath(name)) {
    if (!name.toLowerCase().endsWith('.gguf')) throw bad('is a path but not a .gguf file');
    if (name.startsWith('~/')) {
      if (options.homeDir === undefined) throw bad('starts with ~/ but the home folder is unknown');
      return { kind: 'file', path: resolve(options.homeDir, name.slice(2)) };
    }
    return { kind: 'file', path: isAbsolute(name) ? resolve(name) : resolve(options.cwd, name) };
  }
  const short = SHORT_MODEL_NAMES.find((entry) => entry.name === name.toLowerCase());
  if (short === undefined) throw bad('is not a known short name');
  return withShortName(parseHuggingFace(short.uri.slice('hf:'.length), bad), short.name);
}

function looksLikePath(name: string): boolean {
  return (
    isAbsolute(name) ||
    name.startsWith('./') ||
    name.startsWith('../') ||
    name.startsWith('~/') ||
    name.toLowerCase().endsWith('.gguf')
  );
}

function withShortName(reference: LocalModelReference, shortName: string): LocalModelReference {
  return reference.kind === 'file' ? reference : { ...reference, shortName };
}

/** `owner/repo`, `owner/repo:QUANT` or `owner/repo/path/file.gguf[#branch]`. */
function parseHuggingFace(rest: string, bad: (why: string) => ConfigError): LocalModelReference {
  const [owner = '', repositoryAndTag = '', ...pathParts] = rest.split('/');
  if (!HUB_NAME.test(owner)) throw bad('has no valid owner after hf:');
  if (pathParts.length === 0) {
    const [repository = '', tag = 'latest', ...extra] = repositoryAndTag.split(':');
    if (!HUB_NAME.test(repository)) throw bad('has no valid repository after the owner');
    if (extra.length > 0 || !TAG.test(tag)) throw bad(`has a bad quantization "${tag}"`);
    // Quantization names are upper case in file names (node-llama-cpp compares them so too).
    const canonicalTag = tag.toLowerCase() === 'latest' ? 'latest' : tag.toUpperCase();
    return {
      kind: 'hugging-face-quant',
      uri: `hf:${owner}/${repository}:${canonicalTag}`,
      owner,
      repository,
      tag: canonicalTag,
    };
  }
  const repository = repositoryAndTag;
  if (!HUB_NAME.test(repository) || repository.includes(':'))
    throw bad('has no valid repository after the owner');
  const joined = pathParts.join('/');
  const hash = joined.indexOf('#');
  const filePath = hash < 0 ? joined : joined.slice(0, hash);
  const branch = hash < 0 || joined.slice(hash + 1) === '' ? 'main' : joined.slice(hash + 1);
  const segments = filePath.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw bad('has an empty or relative segment in its file path');
  if (!filePath.toLowerCase().endsWith('.gguf')) throw bad('does not name a .gguf file');
  return {
    kind: 'hugging-face-file',
    uri: `hf:${owner}/${repository}/${filePath}${branch === 'main' ? '' : `#${branch}`}`,
    owner,
    repository,
    filePath,
    branch,
  };
}

/** What a reference is called in messages and `mcphost models list`: its short name, else its URI or path. */
export function localModelLabel(reference: LocalModelReference): string {
  switch (reference.kind) {
    case 'hugging-face-quant':
    case 'hugging-face-file':
      return reference.shortName ?? reference.uri;
    case 'file':
      return reference.path;
    default: {
      const unexpected: never = reference;
      throw new TypeError(`unknown local model ${JSON.stringify(unexpected)}`);
    }
  }
}
