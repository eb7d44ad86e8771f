/** The ACP tool kind of a tool, and what each session mode says about a call (pure functions). */
import { describe, expect, it } from 'vitest';
import { toolKindOf } from '../../src/acp/tool-kind.js';
import { modeCheck, type SessionModeId } from '../../src/acp/modes.js';
import { toolHintsOf } from '../../src/safety/tool-hints.js';

const readOnly = toolHintsOf({ readOnlyHint: true });
const writes = toolHintsOf({ readOnlyHint: false, destructiveHint: true });

describe('toolKindOf', () => {
  it.each([
    ['read_text_file', readOnly, 'read'],
    ['write_file', writes, 'edit'],
    ['edit_file', writes, 'edit'],
    ['move_file', writes, 'move'],
    ['delete_entities', writes, 'delete'],
    ['bash', undefined, 'execute'],
    ['fetch', undefined, 'fetch'],
    ['search_files', readOnly, 'search'],
    ['sequentialthinking', undefined, 'other'],
    // A read-only tool never shows as a change, whatever its name says.
    ['create_report_preview', readOnly, 'read'],
    ['echo', readOnly, 'read'],
    ['echo', undefined, 'other'],
  ] as const)('%s → %s', (tool, hints, kind) => {
    expect(toolKindOf(tool, hints)).toBe(kind);
  });
});

describe('modeCheck', () => {
  const verdict = (mode: SessionModeId, tool: string, hints = writes) =>
    modeCheck(() => mode)({ exposedName: `files__${tool}`, server: 'files', tool, hints }).kind;

  it('ask-before-changes has no say; accept-edits lifts edits only; read-only refuses what is not read-only', () => {
    expect(verdict('ask-before-changes', 'write_file')).toBe('no-say');
    expect(verdict('accept-edits', 'write_file')).toBe('allow');
    expect(verdict('accept-edits', 'move_file')).toBe('allow');
    expect(verdict('accept-edits', 'delete_file')).toBe('no-say');
    expect(verdict('accept-edits', 'bash')).toBe('no-say');
    expect(verdict('read-only', 'write_file')).toBe('refuse');
    expect(verdict('read-only', 'read_text_file', readOnly)).toBe('no-say');
    // Unknown hints are not read-only.
    expect(modeCheck(() => 'read-only')({ exposedName: 'x__read' }).kind).toBe('refuse');
  });
});
