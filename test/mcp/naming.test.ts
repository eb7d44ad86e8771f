import { describe, expect, it } from 'vitest';
import { buildToolNameTable, isValidToolName, MAX_TOOL_NAME_LENGTH } from '../../src/mcp/naming.js';

const VENDOR_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

function namesOf(addresses: Array<[string, string]>): string[] {
  return buildToolNameTable(addresses.map(([server, tool]) => ({ server, tool }))).tools.map(
    (entry) => entry.exposedName,
  );
}

describe('buildToolNameTable', () => {
  it('joins server and tool with a double underscore when nothing needs changing', () => {
    expect(
      namesOf([
        ['everything', 'echo'],
        ['filesystem', 'read_file'],
      ]),
    ).toEqual(['everything__echo', 'filesystem__read_file']);
  });

  it('replaces characters outside [A-Za-z0-9_-] and keeps the cleaned name when it is unique', () => {
    expect(namesOf([['my.server', 'get file!']])).toEqual(['my_server__get_file_']);
  });

  it('prefixes an underscore when the server name does not start with a letter or underscore', () => {
    expect(
      namesOf([
        ['1password', 'lookup'],
        ['-dash', 'x'],
      ]),
    ).toEqual(['_1password__lookup', '_-dash__x']);
  });

  it('routes every exposed name back to the real server and tool through the lookup', () => {
    const table = buildToolNameTable([
      { server: 'a__b', tool: 'c' },
      { server: 'a', tool: 'b__c' },
    ]);
    const names = table.tools.map((entry) => entry.exposedName);
    expect(new Set(names).size).toBe(2);
    // Both raw names read "a__b__c": splitting on "__" could not tell them apart.
    expect(names.every((name) => name.startsWith('a__b') || name.startsWith('a__'))).toBe(true);
    for (const entry of table.tools) {
      expect(table.lookup.get(entry.exposedName)).toEqual({ server: entry.server, tool: entry.tool });
    }
  });

  it('disambiguates names that collide after cleaning with a hash, keeping the exact one plain', () => {
    const table = buildToolNameTable([
      { server: 'my.server', tool: 'run' },
      { server: 'my_server', tool: 'run' },
      { server: 'my server', tool: 'run' },
    ]);
    const [dotted, exact, spaced] = table.tools.map((entry) => entry.exposedName);
    expect(exact).toBe('my_server__run');
    expect(dotted).toMatch(/^my_server__run_[0-9a-f]{8}$/);
    expect(spaced).toMatch(/^my_server__run_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(spaced);
    expect(table.lookup.get(dotted!)).toEqual({ server: 'my.server', tool: 'run' });
    expect(table.lookup.get(spaced!)).toEqual({ server: 'my server', tool: 'run' });
  });

  it('shortens long names to 64 characters with a hash, keeping them unique and valid', () => {
    const server = 'My Company.internal tools server (production) v2.3.1 — east region';
    expect(server.length).toBeGreaterThan(50);
    const longTool = 'search_documents_by_semantic_similarity_with_filters_and_paging';
    const table = buildToolNameTable([
      { server, tool: longTool },
      { server, tool: `${longTool}_v2` },
      { server, tool: 'x' },
    ]);
    const names = table.tools.map((entry) => entry.exposedName);
    expect(new Set(names).size).toBe(3);
    for (const name of names) {
      expect(name).toMatch(VENDOR_PATTERN);
      expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
      expect(name).toMatch(/_[0-9a-f]{8}$/);
    }
    // The tool part is what the model reads: the short tool keeps its whole name.
    expect(names[2]).toMatch(/__x_[0-9a-f]{8}$/);
    expect(names[0]).toContain('__search_documents');
    expect(table.lookup.get(names[1]!)).toEqual({ server, tool: `${longTool}_v2` });
  });

  it('is deterministic and independent of the order of the input', () => {
    const input: Array<[string, string]> = [
      ['a.b', 'tool'],
      ['a_b', 'tool'],
      ['x'.repeat(70), 'y'],
      ['srv', 'z'.repeat(80)],
    ];
    const first = buildToolNameTable(input.map(([server, tool]) => ({ server, tool })));
    const reversed = buildToolNameTable([...input].reverse().map(([server, tool]) => ({ server, tool })));
    const again = buildToolNameTable(input.map(([server, tool]) => ({ server, tool })));
    expect([...again.lookup.entries()]).toEqual([...first.lookup.entries()]);
    expect(new Map(reversed.lookup)).toEqual(new Map(first.lookup));
  });

  it('keeps a duplicated tool once', () => {
    expect(
      namesOf([
        ['s', 't'],
        ['s', 't'],
      ]),
    ).toEqual(['s__t']);
  });

  it('never lets a crafted plain name capture another tool’s hashed name', () => {
    const hashed = namesOf([
      ['s.1', 't'],
      ['s_1', 't'],
    ]).find((name) => name !== 's_1__t')!;
    const crafted = hashed.slice('s_1__'.length);
    const table = buildToolNameTable([
      { server: 's.1', tool: 't' },
      { server: 's_1', tool: 't' },
      { server: 's_1', tool: crafted },
    ]);
    const names = table.tools.map((entry) => entry.exposedName);
    expect(new Set(names).size).toBe(3);
    expect(table.lookup.get(hashed)).toEqual({ server: 's_1', tool: crafted });
  });

  it('gives names every vendor accepts, whatever the input', () => {
    const weird: Array<[string, string]> = [
      ['', ''],
      ['é', 'ü'],
      ['9', '9'],
      ['a'.repeat(200), 'b'.repeat(200)],
      ['名前', 'ツール'],
    ];
    for (const name of namesOf(weird)) expect(isValidToolName(name)).toBe(true);
  });
});
