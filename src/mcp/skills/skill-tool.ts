/**
 * The host's `skill` tool: how the model sees and uses skills, as Claude Code and gemini-cli offer
 * them. The tool's description lists every skill's name and description (only that, up front); a
 * call loads one skill's instructions, or reads one of its files. {@link SkillToolHost} adds it to a
 * tool host (the pool) and answers it; the guard wraps the result, so a call of `skill` is
 * approved, hooked, budgeted and audited like any other tool call.
 *
 * The name has no `__`, so it can never be a server's tool (those are always `server__tool`).
 */
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../../core/types.js';
import type { SkillAnswer, SkillLibrary, SkillSummary } from './skill-library.js';

/** The name of the host's skill tool. */
export const SKILL_TOOL_NAME = 'skill';

/** A skill's description is cut to this many characters in the tool's description. */
const DESCRIPTION_PREVIEW = 300;
/** Skills listed in the tool's description at most (the rest can still be loaded by name). */
const MAX_LISTED_SKILLS = 100;

/** The skill tool's definition for these skills. */
export function skillToolSpec(skills: readonly SkillSummary[]): ToolSpec {
  const listed = skills.slice(0, MAX_LISTED_SKILLS).map((skill) => {
    const description = skill.description.replace(/\s+/g, ' ').trim();
    const preview =
      description.length > DESCRIPTION_PREVIEW
        ? `${description.slice(0, DESCRIPTION_PREVIEW)}…`
        : description;
    return `- ${skill.name}: ${preview}`;
  });
  const more = skills.length > MAX_LISTED_SKILLS ? [`(and ${skills.length - MAX_LISTED_SKILLS} more)`] : [];
  return {
    name: SKILL_TOOL_NAME,
    description: [
      'Loads a skill: instructions and files for a kind of task. When a task matches a skill below, ' +
        'load it first ({"name": …}) and follow its instructions; read a file the instructions name ' +
        'with {"name": …, "file": "<path in the skill>"}.',
      'Skills:',
      ...listed,
      ...more,
    ].join('\n'),
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The skill, as listed.' },
        file: {
          type: 'string',
          description:
            "A file of the skill, by its path in the skill (e.g. 'references/FORMS.md'). Omit to load the skill.",
        },
      },
      required: ['name'],
    },
  };
}

/** The call's arguments, or what is wrong with them. */
export function readSkillInput(
  input: Readonly<Record<string, unknown>>,
): { readonly name: string; readonly file?: string } | string {
  const { name, file } = input;
  if (typeof name !== 'string' || name.trim() === '') {
    return `${SKILL_TOOL_NAME} needs "name": the name of a listed skill, as a string.`;
  }
  if (file === undefined || file === null || file === '') return { name: name.trim() };
  if (typeof file !== 'string') return `${SKILL_TOOL_NAME}: "file" must be a path, as a string.`;
  return { name: name.trim(), file };
}

/** A tool host with the skill tool added (when there is at least one skill). */
export class SkillToolHost implements ToolHost {
  readonly #inner: ToolHost;
  readonly #library: SkillLibrary;

  constructor(options: { readonly inner: ToolHost; readonly library: SkillLibrary }) {
    this.#inner = options.inner;
    this.#library = options.library;
  }

  async tools(): Promise<readonly ToolSpec[]> {
    const [tools, skills] = await Promise.all([this.#inner.tools(), this.#library.list()]);
    return skills.length === 0 ? tools : [...tools, skillToolSpec(skills)];
  }

  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    if (call.name !== SKILL_TOOL_NAME) return this.#inner.call(call, signal);
    const input = readSkillInput(call.input);
    const answer: SkillAnswer =
      typeof input === 'string'
        ? { text: input, isError: true, origin: 'host' }
        : input.file === undefined
          ? await this.#library.load(input.name, signal)
          : await this.#library.readFile(input.name, input.file, signal);
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: answer.text }],
      isError: answer.isError,
      origin: answer.origin,
    };
  }
}
