/**
 * Skills end to end, as a user runs them: the built CLI with `-p`, the fake Ollama playing a model
 * that lists, loads and reads skills through the host's `skill` tool, a skills server on the v2
 * server SDK (test/fixtures/servers/skills-server.mjs, two of whose entries lie), and local skills
 * in a throw-away HOME and in a project folder (used only once its config is trusted).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashConfigText } from '../../config/trust-store.js';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

function skillsServer(readLog: string) {
  return {
    command: process.execPath,
    args: [join(REPOSITORY, 'test/fixtures/servers/skills-server.mjs')],
    env: { SKILLS_READ_LOG: readLog },
  };
}

function mcphost(prompt: string, options: { cwd?: string } = {}) {
  return runCli(
    ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', prompt],
    fixture.home.path,
    options,
  );
}

/** The URIs the skills server was asked to read, in order (none when it never was). */
async function readsOf(readLog: string): Promise<string[]> {
  const text = await readFile(readLog, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

function skillTool(request: FakeChatRequest) {
  return request.tools?.find((tool) => tool.function.name === 'skill');
}

/** Every tool result the model was given in this request, in order, unwrapped. */
function toolResults(request: FakeChatRequest): string[] {
  return request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => unwrapped(message.content));
}

async function writeSkill(folder: string, name: string, skillMd: string, files: Record<string, string> = {}) {
  await mkdir(join(folder, name), { recursive: true });
  await writeFile(join(folder, name, 'SKILL.md'), skillMd);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(folder, name, path, '..'), { recursive: true });
    await writeFile(join(folder, name, path), text);
  }
}

describe('server skills (SEP-2640)', () => {
  it('lists names up front, loads the skill and reads its file only when the model asks', async () => {
    const readLog = join(await fixture.temporaryFolder('mcphost-skills-log-'), 'reads.txt');
    await fixture.home.writeConfig({ mcpServers: { skills: skillsServer(readLog) } });
    const readsWhenAsked: string[][] = [];
    await fixture.startModel([
      async () => {
        readsWhenAsked.push(await readsOf(readLog));
        return toolCallReply(['skill', { name: 'skills:pdf-processing' }]);
      },
      async () => {
        readsWhenAsked.push(await readsOf(readLog));
        return toolCallReply(['skill', { name: 'skills:pdf-processing', file: 'references/FORMS.md' }]);
      },
      (request) => textReply(`the form says: ${toolResults(request).at(-1) ?? ''}`),
    ]);
    const run = await mcphost('fill in the PDF form');
    expect(run.stderr).not.toContain('warning');
    expect(run.code).toBe(0);
    const [first, second] = fixture.model.chatRequests;
    const description = first === undefined ? undefined : skillTool(first)?.function.description;
    expect(description).toContain('- skills:pdf-processing: Extract, fill, and assemble PDF documents');
    expect(description).toContain('- skills:lying-digest: A skill whose listed digest is wrong');
    // Nothing was read before the model asked; SKILL.md when it loaded the skill; then the file.
    expect(readsWhenAsked).toEqual([[], ['skill://pdf-processing/SKILL.md']]);
    expect(await readsOf(readLog)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
    ]);
    const loaded = second === undefined ? '' : (toolResults(second).at(-1) ?? '');
    expect(loaded).toContain('Skill "skills:pdf-processing" loaded.');
    expect(loaded).toContain('To fill a form, first read references/FORMS.md.');
    expect(loaded).toContain('- references/FORMS.md');
    expect(loaded).not.toContain('name: pdf-processing'); // the body, without its front matter
    expect(run.stdout).toContain(
      'the form says: Form fields are filled in with the fill_form procedure: PURPLE-OCTOPUS-7.',
    );
  });

  it('refuses a skill whose digest or size lies, saying which check failed', async () => {
    const readLog = join(await fixture.temporaryFolder('mcphost-skills-log-'), 'reads.txt');
    await fixture.home.writeConfig({ mcpServers: { skills: skillsServer(readLog) } });
    await fixture.startModel([
      toolCallReply(['skill', { name: 'skills:lying-digest' }], ['skill', { name: 'skills:lying-size' }]),
      (request) => textReply(toolResults(request).join('\n---\n')),
    ]);
    const run = await mcphost('use the skills');
    expect(run.code).toBe(0);
    const [digest, size] = run.stdout.split('\n---\n');
    expect(digest).toContain(
      'Error: skill "skills:lying-digest" from server "skills" not loaded: verification failed: digest mismatch: skill://lying-digest/SKILL.md has digest sha256:',
    );
    expect(size).toContain(
      'Error: skill "skills:lying-size" from server "skills" not loaded: verification failed: size mismatch: skill://lying-size/SKILL.md is 86 bytes; the skill entry lists 91',
    );
    expect(run.stdout).not.toContain('Honest body.');
  });

  it('reads nothing when the model does not ask (no prefetch)', async () => {
    const readLog = join(await fixture.temporaryFolder('mcphost-skills-log-'), 'reads.txt');
    await fixture.home.writeConfig({ mcpServers: { skills: skillsServer(readLog) } });
    await fixture.startModel([textReply('no skill needed')]);
    const run = await mcphost('hello');
    expect(run.code).toBe(0);
    expect(fixture.model.chatRequests[0] && skillTool(fixture.model.chatRequests[0])).toBeDefined();
    expect(await readsOf(readLog)).toEqual([]);
  });
});

describe('local skills', () => {
  it("loads the user's skills from ~/.config/mcphost/skills, skipping a bad one with a warning", async () => {
    const folder = join(fixture.home.path, '.config', 'mcphost', 'skills');
    await writeSkill(
      folder,
      'release-notes',
      '---\nname: release-notes\ndescription: "Writes release notes: one line per change"\n---\nList the changes, then read template.md.\n',
      { 'template.md': 'TEMPLATE-GREEN-42' },
    );
    await writeSkill(folder, 'broken', '---\nname: [not closed\n---\nbody\n');
    await fixture.startModel([
      toolCallReply(['skill', { name: 'release-notes' }]),
      toolCallReply(
        ['skill', { name: 'release-notes', file: 'template.md' }],
        ['skill', { name: 'release-notes', file: '../broken/SKILL.md' }],
      ),
      (request) => textReply(toolResults(request).join('\n---\n')),
    ]);
    const run = await mcphost('write release notes');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `${join(folder, 'broken', 'SKILL.md')}: skill skipped: the front matter is not YAML`,
    );
    const description = skillTool(fixture.model.chatRequests[0]!)?.function.description ?? '';
    expect(description).toContain('- release-notes: Writes release notes: one line per change');
    expect(description).not.toContain('broken');
    const [loaded, template, escape] = run.stdout.split('\n---\n');
    expect(loaded).toContain('List the changes, then read template.md.');
    expect(loaded).toContain('- template.md');
    expect(template).toContain('TEMPLATE-GREEN-42');
    expect(escape).toContain(
      'Error: skill "release-notes": "../broken/SKILL.md" is outside the skill\'s folder',
    );
  });

  it("does not load an untrusted project's skills, and loads a trusted project's", async () => {
    const project = await fixture.temporaryFolder('mcphost-skills-project-');
    const configText = JSON.stringify({ mcpServers: {} });
    const config = join(project, '.mcp.json');
    await writeFile(config, configText);
    await writeSkill(
      join(project, '.mcphost', 'skills'),
      'project-style',
      "---\nname: project-style\ndescription: The project's code style\n---\nTabs.\n",
    );
    await fixture.startModel([textReply('ok'), textReply('ok')]);
    const untrusted = await mcphost('hi', { cwd: project });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain('not used: this project config is not trusted');
    expect(fixture.model.chatRequests[0] && skillTool(fixture.model.chatRequests[0])).toBeUndefined();

    const store = join(fixture.home.path, '.local', 'state', 'mcphost', 'trusted-configs.json');
    await mkdir(join(store, '..'), { recursive: true });
    await writeFile(
      store,
      JSON.stringify({
        version: 1,
        trusted: [{ path: config, sha256: hashConfigText(configText), trustedAt: '2025-01-01T00:00:00Z' }],
      }),
    );
    const trusted = await mcphost('hi', { cwd: project });
    expect(trusted.code).toBe(0);
    const description = skillTool(fixture.model.chatRequests[1]!)?.function.description ?? '';
    expect(description).toContain("- project-style: The project's code style");
  });
});
