import { describe, expect, it } from 'vitest';
import { findJsonSyntaxProblem, lineAndColumn } from '../../config/json-syntax.js';

describe('findJsonSyntaxProblem', () => {
  it.each([
    ['{"a": 1, "b": [true, false, null, -1.5e3, "x\\n\\u00e9"], "c": {}}'],
    ['  [ ]  '],
    ['"just a string"'],
    ['0'],
  ])('finds nothing wrong in valid JSON %s', (text) => {
    expect(findJsonSyntaxProblem(text)).toBeUndefined();
  });

  it.each([
    ['{\n  "mcpServers": {\n    "a": }\n}', 3, 10, 'unexpected "}" (expected a value)'],
    ['{\n  "a": {"command": "x",}\n}', 2, 23, 'trailing comma before "}"'],
    ['{"args": ["a", "b",\n]}', 1, 19, 'trailing comma before "]"'],
    ['{\n "a": 1\n', 3, 1, 'unexpected end of file (expected "," or "}")'],
    ['{"a": 1}garbage', 1, 9, 'unexpected "garbage" after the end of the JSON value'],
    ['{"a": 1 "b": 2}', 1, 9, `unexpected '"b"' (expected "," or "}")`],
    ['{command: "npx"}', 1, 2, 'unexpected "command" (expected a property name in double quotes)'],
    ["{'command': 'npx'}", 1, 2, `unexpected "'command'" (expected a property name in double quotes)`],
    ['{"command": npx}', 1, 13, 'unexpected "npx" (expected a value; text needs double quotes)'],
    ['{"a" 1}', 1, 6, 'unexpected "1" (expected ":" after the property name)'],
    ['{"a": "unterminated}', 1, 7, 'unterminated string'],
    ['{"a": "two\nlines"}', 1, 11, 'line break inside a string (write it as \\n)'],
    ['{"a": "tab\there"}', 1, 11, 'control character inside a string (escape it)'],
    ['{"a": "\\x"}', 1, 8, 'invalid escape "\\x" in a string'],
    ['{"a": "\\u12"}', 1, 8, 'invalid escape "\\u" in a string'],
    ['{"a": 01}', 1, 7, 'invalid number'],
    ['{"a": 1.}', 1, 7, 'invalid number'],
    ['{"a": -}', 1, 7, 'invalid number'],
    ['{"a": True}', 1, 7, 'unexpected "True" (expected a value; text needs double quotes)'],
    ['{\n  // a comment\n  "a": 1\n}', 2, 3, 'comments are not allowed in JSON'],
    ['{"a": 1 /* note */}', 1, 9, 'comments are not allowed in JSON'],
    ['', 1, 1, 'unexpected end of file (expected a value)'],
    ['{"é": "😀", x}', 1, 12, 'unexpected "x" (expected a property name in double quotes)'],
  ])('locates the fault in %j', (text, line, column, reason) => {
    expect(findJsonSyntaxProblem(text)).toEqual({ line, column, reason });
  });

  it('agrees with JSON.parse on what is valid', () => {
    const samples = [
      '{"a":[1,2,{"b":null}]}',
      '{"a":1,}',
      '[1 2]',
      '{"a":"\\ud83d\\ude00"}',
      '1e5',
      '-0.0E+1',
      '.5',
    ];
    for (const sample of samples) {
      let parses = true;
      try {
        JSON.parse(sample);
      } catch {
        parses = false;
      }
      expect(findJsonSyntaxProblem(sample) === undefined, sample).toBe(parses);
    }
  });
});

describe('lineAndColumn', () => {
  it('counts lines from 1 and characters, not UTF-16 units', () => {
    expect(lineAndColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('😀x', 2)).toEqual({ line: 1, column: 2 });
  });
});
