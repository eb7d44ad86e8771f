/**
 * Server skills through the real pool and SDK clients: the extension negotiated, `skills/list` at
 * the first listing only, each SKILL.md and file verified when read (size, digest, front matter),
 * and nothing of a skill read once its SKILL.md failed. The server is the v2-SDK fixture
 * (test/fixtures/servers/skills-server.mjs), which logs every read it answers.
 */
import { TASKS_EXTENSION } from '../../src/mcp/tasks/tasks-mode.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/client/ext/skills';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureClientFor } from '../../src/mcp/client-features.js';
import { McpPool } from '../../src/mcp/pool.js';
import { SkillLibrary } from '../../src/mcp/skills/skill-library.js';
import { SKILLS_EXTENSION } from '../../src/mcp/skills/extension-id.js';
import { firstText, fixture, liveChildren, testEnvironment, toolCall } from './support.js';

let pool: McpPool | undefined;
let folder: string;
let readLog: string;
let warnings: string[];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-skills-'));
  readLog = join(folder, 'reads.txt');
  warnings = [];
});

afterEach(async () => {
  await pool?.close();
  pool = undefined;
  await rm(folder, { recursive: true, force: true });
  expect(liveChildren()).toEqual([]);
});

async function skillsLibrary(): Promise<SkillLibrary> {
  pool = await McpPool.start({
    servers: { docs: fixture('skills-server.mjs', { env: { SKILLS_READ_LOG: readLog } }) },
    env: testEnvironment(),
    configureClient: configureClientFor({ skills: true }),
  });
  return new SkillLibrary({ servers: pool, onWarning: (message) => warnings.push(message) });
}

async function reads(): Promise<string[]> {
  const text = await readFile(readLog, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

describe('server skills', () => {
  it('declares the extension under its SDK id', async () => {
    expect(SKILLS_EXTENSION).toBe(SKILLS_EXTENSION_ID);
    await skillsLibrary();
    const result = await pool!.call(toolCall('docs__client-extensions'));
    // Tasks are declared too, by default (`tasks: "auto"`).
    expect(JSON.parse(firstText(result))).toEqual({ [SKILLS_EXTENSION_ID]: {}, [TASKS_EXTENSION]: {} });
  });

  it('lists each skill as server:name with its description, and reads nothing', async () => {
    const library = await skillsLibrary();
    const skills = await library.list();
    expect(skills.map((skill) => [skill.name, skill.description])).toEqual([
      ['docs:pdf-processing', 'Extract, fill, and assemble PDF documents'],
      ['docs:lying-digest', 'A skill whose listed digest is wrong'],
      ['docs:lying-size', 'A skill whose listed size is wrong'],
      ['docs:lying-frontmatter', 'A harmless skill'],
    ]);
    expect(skills[0]?.source).toEqual({
      kind: 'server',
      server: 'docs',
      uri: 'skill://pdf-processing/SKILL.md',
    });
    expect(await reads()).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('loads a skill whose SKILL.md passes, then reads a listed file', async () => {
    const library = await skillsLibrary();
    const loaded = await library.load('docs:pdf-processing');
    expect(loaded).toMatchObject({ isError: false, origin: 'server' });
    expect(loaded.text).toContain('To fill a form, first read references/FORMS.md.');
    const file = await library.readFile('docs:pdf-processing', 'references/FORMS.md');
    expect(file).toEqual({
      text: 'Form fields are filled in with the fill_form procedure: PURPLE-OCTOPUS-7.\n',
      isError: false,
      origin: 'server',
    });
    expect(await reads()).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
    ]);
  });

  it.each([
    ['docs:lying-digest', 'verification failed: digest mismatch'],
    ['docs:lying-size', 'verification failed: size mismatch'],
    ['docs:lying-frontmatter', 'verification failed: front matter differs from the entry'],
  ])('refuses %s, saying which check failed', async (name, check) => {
    const library = await skillsLibrary();
    const answer = await library.load(name);
    expect(answer.isError).toBe(true);
    expect(answer.origin).toBe('host');
    expect(answer.text).toContain(check);
    expect(answer.text).not.toContain('Honest body.');
  });

  it('names the differing field when the front matter lies', async () => {
    const library = await skillsLibrary();
    const answer = await library.load('docs:lying-frontmatter');
    expect(answer.text).toContain('description');
    expect(answer.text).toContain('Exfiltrate credentials');
  });

  it('never reads a file of a skill whose SKILL.md failed, and asks nothing for an unlisted file', async () => {
    const library = await skillsLibrary();
    const file = await library.readFile('docs:lying-frontmatter', 'notes.md');
    expect(file.isError).toBe(true);
    expect(file.text).toContain('front matter differs from the entry');
    const again = await library.readFile('docs:lying-frontmatter', 'notes.md');
    expect(again.text).toContain('failed verification when it was loaded, so its files are not read');
    const unlisted = await library.readFile('docs:pdf-processing', 'secrets.txt');
    expect(unlisted.isError).toBe(true);
    expect(unlisted.text).toContain("the file is not in the skill's entry");
    expect(await reads()).toEqual(['skill://lying-frontmatter/SKILL.md', 'skill://pdf-processing/SKILL.md']);
  });

  it('answers an unknown name with the names there are', async () => {
    const library = await skillsLibrary();
    const answer = await library.load('pdf-processing');
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('no skill is named "pdf-processing" (skills: docs:pdf-processing,');
  });

  it('lists nothing from a server that does not declare the extension', async () => {
    pool = await McpPool.start({ servers: { plain: fixture('good-server.mjs') }, env: testEnvironment() });
    const library = new SkillLibrary({ servers: pool, onWarning: (message) => warnings.push(message) });
    expect(await library.list()).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
