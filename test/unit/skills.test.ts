/**
 * Skills, the pure parts: SKILL.md front matter, the skill tool's definition and arguments, and
 * local skill folders (a bad SKILL.md skipped with a warning naming it; no path out of a folder).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findLocalSkills, loadLocalSkill, readLocalSkillFile } from '../../src/mcp/skills/local-skills.js';
import { parseSkillFile } from '../../src/mcp/skills/skill-file.js';
import { SkillLibrary } from '../../src/mcp/skills/skill-library.js';
import { readSkillInput, skillToolSpec, SkillToolHost } from '../../src/mcp/skills/skill-tool.js';
import { ToolCatalog } from '../../src/context/tool-catalog.js';
import { TOOL_SEARCH_NAME } from '../../src/context/tool-search.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

describe('parseSkillFile', () => {
  it('reads name, description, the rest of the front matter, and the body', async () => {
    const parsed = await parseSkillFile(
      '\uFEFF---\r\nname: pdf-tools\r\ndescription: "Fill: forms"\r\nlicense: MIT\r\n---\r\n# Body\r\n',
      'pdf-tools',
    );
    expect(parsed).toEqual({
      kind: 'skill',
      name: 'pdf-tools',
      description: 'Fill: forms',
      frontMatter: { name: 'pdf-tools', description: 'Fill: forms', license: 'MIT' },
      body: '# Body\r\n',
    });
  });

  it.each([
    ['# no front matter', 'no front matter (the file must start with a "---" line)'],
    ['---\nname: [open\n---\n', 'the front matter is not YAML'],
    ['---\n- a list\n---\n', 'the front matter is not a YAML mapping'],
    ['---\ndescription: d\n---\n', '"name" is missing or not a string'],
    ['---\nname: Bad_Name\ndescription: d\n---\n', '"name" "Bad_Name" must be 1-64 lower-case letters'],
    ['---\nname: a--b\ndescription: d\n---\n', '"name" "a--b" must be'],
    ['---\nname: other\ndescription: d\n---\n', '"name" "other" is not the folder\'s name "folder"'],
    ['---\nname: folder\n---\n', '"description" is missing or not a string'],
    ['---\nname: folder\ndescription: 42\n---\n', '"description" is missing or not a string'],
  ])('refuses %j', async (text, problem) => {
    const parsed = await parseSkillFile(text, 'folder');
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' ? parsed.problem : '').toContain(problem);
  });
});

describe('the skill tool', () => {
  it('lists every skill by name and description, and nothing else of them', () => {
    const spec = skillToolSpec([
      { name: 'notes', description: 'Writes\n  notes', source: { kind: 'user', folder: '/x' } },
      {
        name: 'docs:pdf',
        description: 'PDFs',
        source: { kind: 'server', server: 'docs', uri: 'skill://pdf/SKILL.md' },
      },
    ]);
    expect(spec.name).toBe('skill');
    expect(spec.description).toContain('\n- notes: Writes notes\n- docs:pdf: PDFs');
    expect(spec.inputSchema).toMatchObject({ required: ['name'] });
  });

  it('reads its arguments, saying what is wrong', () => {
    expect(readSkillInput({ name: ' notes ' })).toEqual({ name: 'notes' });
    expect(readSkillInput({ name: 'notes', file: 'a.md' })).toEqual({ name: 'notes', file: 'a.md' });
    expect(readSkillInput({})).toBe('skill needs "name": the name of a listed skill, as a string.');
    expect(readSkillInput({ name: 'notes', file: 3 })).toBe('skill: "file" must be a path, as a string.');
  });

  it('is offered only when there are skills, and passes other calls through', async () => {
    const inner = new FakeToolHost({ fs__read: () => 'file text' });
    const none = new SkillToolHost({ inner, library: new SkillLibrary({}) });
    expect((await none.tools()).map((tool) => tool.name)).toEqual(['fs__read']);
    const result = await none.call({ type: 'tool-call', id: '1', name: 'skill', input: { name: 'x' } });
    expect(result).toMatchObject({ isError: true, origin: 'host' });
    expect(result.content[0]).toEqual({ type: 'text', text: 'no skill is named "x"' });
    const passed = await none.call({ type: 'tool-call', id: '2', name: 'fs__read', input: {} });
    expect(passed.content[0]).toEqual({ type: 'text', text: 'file text' });
    expect(inner.calls.map((call) => call.name)).toEqual(['fs__read']);
  });
});

describe('the skill tool under tool search', () => {
  it('is sent at every step with the search tool, its list of skills up front', () => {
    const serverTools = Array.from({ length: 200 }, (_, index) => ({
      name: `server__tool_${index}`,
      description: `tool ${index}`,
      inputSchema: { type: 'object' },
    }));
    const skill = skillToolSpec([
      { name: 'notes', description: 'Takes notes', source: { kind: 'user', folder: '/x' } },
    ]);
    const tools = [...serverTools, skill];
    const catalog = new ToolCatalog();
    const step = catalog.select(new FakeToolHost({}), tools, {
      provider: 'openai',
      window: { tokens: 8_000, source: 'table' },
    });
    expect(step.mode.kind).toBe('search');
    expect(step.offered.map((tool) => tool.name)).toEqual([TOOL_SEARCH_NAME, 'skill']);
    expect(step.offered[1]?.description).toContain('- notes: Takes notes');
  });
});

describe('local skills', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcphost-local-skills-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function skill(name: string, text: string, files: Record<string, string> = {}) {
    await mkdir(join(root, name), { recursive: true });
    await writeFile(join(root, name, 'SKILL.md'), text);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(root, name, path, '..'), { recursive: true });
      await writeFile(join(root, name, path), content);
    }
  }

  it('finds good skills, warns once per bad one naming its file, and ignores a missing folder', async () => {
    await skill('good', '---\nname: good\ndescription: Good one\n---\nDo it.\n', { 'ref/a.md': 'A' });
    await skill('bad', '---\nname: wrong\ndescription: d\n---\n');
    await mkdir(join(root, 'no-skill-md'));
    const warnings: string[] = [];
    const found = await findLocalSkills(root, 'user', (message) => warnings.push(message));
    expect(found).toEqual([
      { scope: 'user', name: 'good', description: 'Good one', folder: join(root, 'good') },
    ]);
    expect(warnings).toEqual([
      `${join(root, 'bad', 'SKILL.md')}: skill skipped: "name" "wrong" is not the folder's name "bad"`,
    ]);
    expect(await findLocalSkills(join(root, 'missing'), 'user', (message) => warnings.push(message))).toEqual(
      [],
    );
    expect(warnings).toHaveLength(1);
    const loaded = await loadLocalSkill(found[0]!);
    expect(loaded).toEqual({ kind: 'loaded', body: 'Do it.\n', files: ['ref/a.md'] });
  });

  it('reads files inside the folder only', async () => {
    await skill('good', '---\nname: good\ndescription: Good one\n---\n', { 'a.md': 'A' });
    await writeFile(join(root, 'secret.txt'), 'SECRET');
    await symlink(join(root, 'secret.txt'), join(root, 'good', 'link.txt'));
    const good = {
      scope: 'user' as const,
      name: 'good',
      description: 'Good one',
      folder: join(root, 'good'),
    };
    expect(await readLocalSkillFile(good, 'a.md')).toEqual({ kind: 'text', text: 'A' });
    expect(await readLocalSkillFile(good, '../secret.txt')).toEqual({
      kind: 'failed',
      problem: '"../secret.txt" is outside the skill\'s folder',
    });
    expect(await readLocalSkillFile(good, join(root, 'secret.txt'))).toMatchObject({ kind: 'failed' });
    expect(await readLocalSkillFile(good, 'link.txt')).toEqual({
      kind: 'failed',
      problem: '"link.txt" leads outside the skill\'s folder',
    });
    expect(await readLocalSkillFile(good, 'none.md')).toEqual({
      kind: 'failed',
      problem: 'the skill has no file "none.md"',
    });
  });

  it("hides a user's skill behind the project's skill of the same name, with a warning", async () => {
    const project = join(root, 'project');
    const user = join(root, 'user');
    for (const [folder, description] of [
      [project, 'Project version'],
      [user, 'User version'],
    ] as const) {
      await mkdir(join(folder, 'style'), { recursive: true });
      await writeFile(
        join(folder, 'style', 'SKILL.md'),
        `---\nname: style\ndescription: ${description}\n---\n`,
      );
    }
    const warnings: string[] = [];
    const library = new SkillLibrary({
      userFolder: user,
      projectFolder: project,
      onWarning: (m) => warnings.push(m),
    });
    expect((await library.list()).map((s) => [s.name, s.description, s.source.kind])).toEqual([
      ['style', 'Project version', 'project'],
    ]);
    expect(warnings).toEqual([
      `${join(user, 'style')}: skill hidden by the project's skill of the same name`,
    ]);
  });
});
