/**
 * `/skills`: the skills the model is offered (its `skill` tool lists the same), each with where it
 * comes from — a server, the user's skills folder, or the project's — and its description.
 */
import type { SkillSource, SkillSummary } from '../../mcp/skills/skill-library.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { show, type ChatCommand } from './command-table.js';
import type { Style } from './style.js';

export const SKILLS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/skills',
    summary: "list the skills offered to the model (servers', yours, the project's)",
    run: async (_, context) => show(listSkills((await context.skills?.()) ?? [], context.style)),
  },
];

/** The listing: one skill per line, then its description indented below it. */
export function listSkills(skills: readonly SkillSummary[], style: Style): string {
  if (skills.length === 0) {
    return 'No skills. Put one in ~/.config/mcphost/skills/<name>/SKILL.md, or use a server that offers them.';
  }
  const lines = [`Skills (${skills.length}; the model loads one when a task calls for it):`];
  for (const skill of skills) {
    // A server's words reach the terminal: no escape sequence of theirs may pass.
    const description = stripControlCharacters(skill.description).replace(/\s+/g, ' ').trim();
    lines.push(`  ${style.bold(stripControlCharacters(skill.name))}  ${style.dim(sourceOf(skill.source))}`);
    lines.push(`      ${description}`);
  }
  return lines.join('\n');
}

function sourceOf(source: SkillSource): string {
  switch (source.kind) {
    case 'server':
      return `server "${stripControlCharacters(source.server)}"`;
    case 'user':
      return `your skills (${source.folder})`;
    case 'project':
      return `this project (${source.folder})`;
    default: {
      const unexpected: never = source;
      return String(unexpected);
    }
  }
}
