import { describe, expect, it } from 'vitest';
import { GEMINI_SCHEMA_RULES, cleanJsonSchema, cleanSchemaForGemini } from '../../providers/schema.js';
import type { JsonSchema } from '../../src/core/types.js';
import { validateJsonSchemaParameters } from '../fakes/gemini-schema-validation.js';
import { TOOLS } from '../fixtures/conversation.js';

/** What zod-to-json-schema (MCP TypeScript servers) emits. */
const ZOD_SCHEMA: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File to edit', format: 'uri-reference' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          oldText: { type: 'string', minLength: 1, pattern: '^.+$' },
          newText: { type: 'string', default: '' },
        },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
    dryRun: { type: 'boolean', default: false, description: 'Preview only' },
    when: { type: 'string', format: 'date-time' },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
};

/** What pydantic (MCP Python servers) emits: `$defs`, `$ref` with siblings, `anyOf` with null. */
const PYDANTIC_SCHEMA: JsonSchema = {
  $defs: {
    Filter: {
      type: 'object',
      title: 'Filter',
      properties: {
        field: { type: 'string', title: 'Field' },
        op: { enum: ['eq', 'ne', 'gt'], type: 'string', title: 'Op' },
      },
      required: ['field', 'op'],
    },
    Node: {
      type: 'object',
      description: 'A tree node',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/Node' } },
      },
    },
  },
  type: 'object',
  title: 'queryArguments',
  properties: {
    filter: { $ref: '#/$defs/Filter', description: 'Which rows' },
    limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Limit' },
    tree: { $ref: '#/$defs/Node' },
  },
  required: ['filter'],
};

const clean = cleanSchemaForGemini;

describe('cleanSchemaForGemini', () => {
  it('cleans what zod-to-json-schema servers send, keeping what Gemini reads', () => {
    expect(clean(ZOD_SCHEMA)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to edit' },
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
            required: ['oldText', 'newText'],
            additionalProperties: false,
          },
        },
        dryRun: { type: 'boolean', description: 'Preview only' },
        when: { type: 'string', format: 'date-time' },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    });
  });

  it('inlines $defs references, siblings winning, and cuts a recursive type to its kind', () => {
    expect(clean(PYDANTIC_SCHEMA)).toEqual({
      type: 'object',
      title: 'queryArguments',
      properties: {
        filter: {
          type: 'object',
          title: 'Filter',
          description: 'Which rows',
          properties: {
            field: { type: 'string', title: 'Field' },
            op: { enum: ['eq', 'ne', 'gt'], type: 'string', title: 'Op' },
          },
          required: ['field', 'op'],
        },
        limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], title: 'Limit' },
        tree: {
          type: 'object',
          description: 'A tree node',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { type: 'object', description: 'A tree node' } },
          },
        },
      },
      required: ['filter'],
    });
  });

  it('keeps type arrays and anyOf/oneOf, cleaning their members', () => {
    const cleaned = clean({
      type: 'object',
      properties: {
        head: { type: ['number', 'null'], default: 10 },
        target: {
          oneOf: [
            { type: 'string', format: 'uri' },
            {
              type: 'object',
              properties: { id: { type: 'integer', examples: [1] } },
              required: ['id', 'ghost'],
            },
          ],
        },
      },
    });
    expect(cleaned.properties).toEqual({
      head: { type: ['number', 'null'] },
      target: {
        oneOf: [
          { type: 'string' },
          { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
        ],
      },
    });
  });

  it('cleans a schema given as additionalProperties, and draft-07 tuples become prefixItems', () => {
    const cleaned = clean({
      type: 'object',
      properties: {
        env: { type: 'object', additionalProperties: { type: 'string', default: 'x', $comment: 'value' } },
        point: { type: 'array', items: [{ type: 'number' }, { type: 'number', default: 0 }], minItems: 2 },
      },
    });
    expect(cleaned.properties).toEqual({
      env: { type: 'object', additionalProperties: { type: 'string' } },
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], minItems: 2 },
    });
  });

  it('merges allOf, turns const into enum, and keeps only string and number enum values', () => {
    const cleaned = clean({
      type: 'object',
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { const: 'fixed' } }, required: ['b'] },
      ],
      properties: {
        flag: { type: 'boolean', enum: [true, false] },
        size: { enum: ['s', 'm', null, 3] },
      },
    });
    expect(cleaned).toEqual({
      type: 'object',
      properties: {
        flag: { type: 'boolean' },
        size: { enum: ['s', 'm', 3] },
        a: { type: 'string' },
        b: { enum: ['fixed'] },
      },
      required: ['a', 'b'],
    });
  });

  it('drops required names that no property defines, and an unresolvable reference', () => {
    const cleaned = clean({
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/Missing', description: 'kept' },
        b: { $ref: 'https://example.com/s.json' },
      },
      required: ['a', 'c'],
    });
    expect(cleaned).toEqual({
      type: 'object',
      properties: { a: { description: 'kept' }, b: {} },
      required: ['a'],
    });
  });

  it('always gives an object schema with properties', () => {
    expect(clean({})).toEqual({ type: 'object', properties: {} });
    expect(clean({ type: 'object' })).toEqual({ type: 'object', properties: {} });
    expect(clean({ properties: { a: { type: 'string' } } })).toEqual({
      properties: { a: { type: 'string' } },
      type: 'object',
    });
  });

  it('does not modify its input', () => {
    const input = structuredClone(PYDANTIC_SCHEMA);
    clean(input);
    expect(input).toEqual(PYDANTIC_SCHEMA);
  });

  it('keeps a property named __proto__ as data', () => {
    const input = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as JsonSchema;
    const properties = clean(input).properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });

  it('stays bounded on references that fan out exponentially', () => {
    const definitions: Record<string, unknown> = { D0: { type: 'string' } };
    for (let level = 1; level <= 30; level++) {
      definitions[`D${level}`] = {
        type: 'object',
        properties: { left: { $ref: `#/$defs/D${level - 1}` }, right: { $ref: `#/$defs/D${level - 1}` } },
      };
    }
    const cleaned = clean({
      type: 'object',
      $defs: definitions,
      properties: { root: { $ref: '#/$defs/D30' } },
    });
    expect(JSON.stringify(cleaned).length).toBeLessThan(1_000_000);
    expect(JSON.stringify(cleaned)).not.toContain('$ref');
  });

  it('gives schemas the Gemini fake accepts in parametersJsonSchema, from every real shape', () => {
    for (const schema of [ZOD_SCHEMA, PYDANTIC_SCHEMA, ...TOOLS.map((tool) => tool.inputSchema)]) {
      const cleaned = clean(schema);
      expect(JSON.stringify(cleaned)).not.toMatch(/\$ref|\$defs|\$schema|"default"/);
      expect(validateJsonSchemaParameters(cleaned, 'parameters_json_schema')).toBeUndefined();
    }
  });
});

describe('cleanJsonSchema with other rules', () => {
  it("keeps every keyword but the dropped ones with keywords: 'all'", () => {
    const cleaned = cleanJsonSchema(
      { $schema: 'x', type: 'object', properties: { a: { type: 'string', pattern: '^a', $comment: 'c' } } },
      {
        keywords: 'all',
        dropKeywords: new Set(['$schema', '$comment']),
        inlineReferences: false,
        mergeAllOf: false,
        constAsEnum: false,
      },
    );
    expect(cleaned).toEqual({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } } });
  });

  it('leaves references alone when not asked to inline them', () => {
    const schema = {
      type: 'object',
      $defs: { A: { type: 'string' } },
      properties: { a: { $ref: '#/$defs/A' } },
    };
    const cleaned = cleanJsonSchema(schema, {
      ...GEMINI_SCHEMA_RULES,
      keywords: 'all',
      inlineReferences: false,
    });
    expect(cleaned).toEqual(schema);
  });
});
