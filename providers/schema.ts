/**
 * JSON Schema clean-up per vendor.
 *
 * MCP servers describe their tools with whatever JSON Schema their library emits: `$schema`,
 * `$ref`/`$defs`, `default`, `format: "uri"`, type arrays, `additionalProperties`, `allOf`… Each
 * vendor accepts a different subset, and one schema it rejects fails the whole request (every tool
 * is lost, not just the bad one). {@link cleanJsonSchema} rewrites a schema by a set of
 * {@link SchemaCleaningRules}; each vendor keeps its rules next to its own cleaner
 * ({@link cleanSchemaForGemini}). The input is never modified.
 */
import type { JsonSchema } from '../src/core/types.js';

/** A JSON Schema node after cleaning: a fresh, mutable plain object. */
export type CleanSchema = Record<string, unknown>;

/** JSON value types, as an `enum` value may have. */
export type JsonValueType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** How to rewrite a schema for one vendor. */
export interface SchemaCleaningRules {
  /**
   * Keywords kept on every schema node (`'all'` keeps everything but {@link dropKeywords}).
   * Keywords that hold subschemas are cleaned recursively.
   */
  readonly keywords: ReadonlySet<string> | 'all';
  /** Keywords removed everywhere, even when {@link keywords} is `'all'`. */
  readonly dropKeywords?: ReadonlySet<string>;
  /**
   * Replace every same-document `$ref` with the schema it points at, then drop `$defs` and
   * `definitions`. A reference back into itself (a recursive type) is cut to a plain schema of the
   * same `type`; a reference that cannot be resolved is dropped, leaving its siblings.
   */
  readonly inlineReferences: boolean;
  /** Merge the members of `allOf` into their parent (for vendors that lack `allOf`). */
  readonly mergeAllOf: boolean;
  /** Rewrite `const: x` as `enum: [x]` (for vendors that lack `const`). */
  readonly constAsEnum: boolean;
  /** Types an `enum` may list; other values are removed, and an enum left empty is dropped. */
  readonly enumValueTypes?: ReadonlySet<JsonValueType>;
  /** `format` values kept; others are dropped (unset: every format is kept). */
  readonly formats?: ReadonlySet<string>;
}

/** Keywords whose value is a map of names to subschemas. */
const SCHEMA_MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Keywords whose value is one subschema (or, for some, a boolean). */
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

/** Cap on `$ref` expansions per schema: a few shared definitions referenced from many places can
 * otherwise grow exponentially when inlined. Past it, references are cut like cycles. */
const MAX_REFERENCE_EXPANSIONS = 500;

/**
 * Gemini, through `FunctionDeclaration.parametersJsonSchema` (plain JSON Schema; the older
 * `parameters` field takes only an OpenAPI 3.0 subset and rejects `$schema`, `additionalProperties`,
 * type arrays…). The Gemini API documents this JSON Schema subset: `$id`, `$defs`, `$ref`,
 * `$anchor`, `type`, `format`, `title`, `description`, `enum` (strings and numbers), `items`,
 * `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `oneOf`, `properties`,
 * `additionalProperties`, `required`, and the non-standard `propertyOrdering`; a node with `$ref`
 * may carry nothing else, and a reference it cannot resolve fails the request with 400. So we keep
 * that list, inline references (no `$ref` or `$defs` is ever sent), merge `allOf`, turn `const`
 * into `enum`, drop `$schema`/`$comment`/`default`/`examples`/`pattern`…, and keep only the string
 * formats the service names (`date-time`, `date`, `time`) and the numeric ones of OpenAPI.
 */
export const GEMINI_SCHEMA_RULES: SchemaCleaningRules = {
  keywords: new Set([
    'type',
    'format',
    'title',
    'description',
    'enum',
    'items',
    'prefixItems',
    'minItems',
    'maxItems',
    'minimum',
    'maximum',
    'anyOf',
    'oneOf',
    'properties',
    'additionalProperties',
    'required',
    'propertyOrdering',
  ]),
  inlineReferences: true,
  mergeAllOf: true,
  constAsEnum: true,
  enumValueTypes: new Set(['string', 'number']),
  formats: new Set(['date-time', 'date', 'time', 'int32', 'int64', 'float', 'double']),
};

/** Cleans a tool's input schema for Gemini's `parametersJsonSchema`: see {@link GEMINI_SCHEMA_RULES}. */
export function cleanSchemaForGemini(schema: JsonSchema): CleanSchema {
  return cleanJsonSchema(schema, GEMINI_SCHEMA_RULES);
}

/**
 * Rewrites a tool's input schema by `rules`. The result always describes an object (`type:
 * "object"` with `properties`), as every vendor requires of tool parameters, and its `required`
 * lists only properties it defines (vendors reject the others with 400).
 */
export function cleanJsonSchema(schema: JsonSchema, rules: SchemaCleaningRules): CleanSchema {
  const cleaner = new SchemaCleaner(schema, rules);
  const root = cleaner.clean(schema, []);
  if (root.type === undefined && root.anyOf === undefined && root.oneOf === undefined) root.type = 'object';
  if (root.type === 'object' && !isSchemaObject(root.properties)) root.properties = {};
  return root;
}

/** Walks one schema; holds the root (for references) and the expansion budget. */
class SchemaCleaner {
  readonly #root: JsonSchema;
  readonly #rules: SchemaCleaningRules;
  #expansionsLeft = MAX_REFERENCE_EXPANSIONS;

  constructor(root: JsonSchema, rules: SchemaCleaningRules) {
    this.#root = root;
    this.#rules = rules;
  }

  /** `references` holds the `$ref`s being expanded above this node, to cut cycles. */
  clean(input: unknown, references: readonly string[]): CleanSchema {
    // `true` (anything) and other non-objects become the empty schema; `false` has no portable form.
    if (!isSchemaObject(input)) return {};
    let node: Readonly<Record<string, unknown>> = input;
    let expanded = references;
    if (this.#rules.inlineReferences) {
      ({ node, references: expanded } = this.#resolveReference(node, references));
    }
    if (this.#rules.mergeAllOf && Array.isArray(node.allOf)) node = this.#mergeAllOf(node, expanded);
    if (this.#rules.constAsEnum && 'const' in node && !('enum' in node)) {
      const { const: value, ...rest } = node;
      node = { ...rest, enum: [value] };
    }
    const entries: Array<[string, unknown]> = [];
    for (const [keyword, value] of Object.entries(node)) {
      if (!this.#keeps(keyword)) continue;
      const cleaned = this.#cleanKeyword(keyword, value, expanded);
      if (cleaned !== undefined) entries.push([keyword, cleaned]);
    }
    // fromEntries defines own properties, so a keyword or property named `__proto__` stays data.
    const output: CleanSchema = Object.fromEntries(entries);
    // Draft-07 tuples (`items: [a, b]`) are `prefixItems` since 2020-12, which is what vendors know.
    if (Array.isArray(node.items) && this.#keeps('prefixItems') && output.prefixItems === undefined) {
      output.prefixItems = node.items.map((item) => this.clean(item, expanded));
    }
    filterEnum(output, this.#rules.enumValueTypes);
    filterRequired(output);
    return output;
  }

  #keeps(keyword: string): boolean {
    if (this.#rules.dropKeywords?.has(keyword) === true) return false;
    if (
      this.#rules.inlineReferences &&
      (keyword === '$ref' || keyword === '$defs' || keyword === 'definitions')
    ) {
      return false;
    }
    return this.#rules.keywords === 'all' || this.#rules.keywords.has(keyword);
  }

  #cleanKeyword(keyword: string, value: unknown, references: readonly string[]): unknown {
    if (SCHEMA_MAP_KEYWORDS.has(keyword)) {
      if (!isSchemaObject(value)) return undefined;
      return Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, this.clean(child, references)]),
      );
    }
    if (SCHEMA_LIST_KEYWORDS.has(keyword)) {
      return Array.isArray(value) ? value.map((child) => this.clean(child, references)) : undefined;
    }
    if (keyword === 'items') {
      // A list here is a draft-07 tuple, turned into `prefixItems` by the caller.
      return Array.isArray(value) ? undefined : this.clean(value, references);
    }
    if (SCHEMA_KEYWORDS.has(keyword)) {
      return typeof value === 'boolean' ? value : this.clean(value, references);
    }
    if (keyword === 'format') {
      return typeof value === 'string' && (this.#rules.formats?.has(value) ?? true) ? value : undefined;
    }
    return structuredClone(value);
  }

  /** Replaces a `$ref` node by its target, its own other keywords winning (as JSON Schema says). */
  #resolveReference(
    node: Readonly<Record<string, unknown>>,
    references: readonly string[],
  ): { node: Readonly<Record<string, unknown>>; references: readonly string[] } {
    const reference = node.$ref;
    if (typeof reference !== 'string') return { node, references };
    const { $ref: _reference, ...siblings } = node;
    const target = resolvePointer(this.#root, reference);
    if (target === undefined) return { node: siblings, references };
    if (references.includes(reference) || this.#expansionsLeft <= 0) {
      // A recursive type: keep its kind and meaning, let the model fill in the depth.
      const cut: Record<string, unknown> = {};
      if (typeof target.type === 'string') cut.type = target.type;
      if (typeof target.description === 'string') cut.description = target.description;
      return { node: { ...cut, ...siblings }, references };
    }
    this.#expansionsLeft -= 1;
    const deeper = [...references, reference];
    // The target may itself be a reference; resolve it in the same chain.
    const resolved = this.#resolveReference(target, deeper);
    return { node: { ...resolved.node, ...siblings }, references: resolved.references };
  }

  #mergeAllOf(
    node: Readonly<Record<string, unknown>>,
    references: readonly string[],
  ): Record<string, unknown> {
    const { allOf, ...rest } = node;
    const merged: Record<string, unknown> = rest;
    if (!Array.isArray(allOf)) return merged;
    for (const member of allOf) {
      if (!isSchemaObject(member)) continue;
      const resolved = this.#rules.inlineReferences
        ? this.#resolveReference(member, references).node
        : member;
      const flat = Array.isArray(resolved.allOf) ? this.#mergeAllOf(resolved, references) : resolved;
      for (const [keyword, value] of Object.entries(flat)) {
        if (keyword === 'properties' && isSchemaObject(value)) {
          merged.properties = { ...(isSchemaObject(merged.properties) ? merged.properties : {}), ...value };
        } else if (keyword === 'required' && Array.isArray(value)) {
          const required: readonly unknown[] = Array.isArray(merged.required) ? merged.required : [];
          const added: readonly unknown[] = value;
          merged.required = [...new Set([...required, ...added])];
        } else if (!Object.hasOwn(merged, keyword)) {
          Object.defineProperty(merged, keyword, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
    }
    return merged;
  }
}

/** Resolves a same-document reference (`#`, `#/$defs/Name`, `#/properties/a~1b`). */
function resolvePointer(root: JsonSchema, reference: string): Readonly<Record<string, unknown>> | undefined {
  if (reference === '#') return root;
  if (!reference.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isSchemaObject(node) ? node : undefined;
}

function filterEnum(output: CleanSchema, types: ReadonlySet<JsonValueType> | undefined): void {
  if (types === undefined || !Array.isArray(output.enum)) return;
  const values = output.enum.filter((value: unknown) => types.has(jsonType(value)));
  if (values.length === 0) delete output.enum;
  else output.enum = values;
}

function filterRequired(output: CleanSchema): void {
  if (!('required' in output)) return;
  const properties = isSchemaObject(output.properties) ? output.properties : {};
  const required = Array.isArray(output.required)
    ? [
        ...new Set(
          output.required.filter(
            (name): name is string => typeof name === 'string' && Object.hasOwn(properties, name),
          ),
        ),
      ]
    : [];
  if (required.length === 0) delete output.required;
  else output.required = required;
}

function jsonType(value: unknown): JsonValueType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

function isSchemaObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
