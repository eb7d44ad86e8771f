/**
 * Skills through the library: `runner.skills.list()` gives the user's and the servers' skills, and
 * a run's model loads one through the `skill` tool. createRunner with a throw-away home, the
 * v2-SDK skills fixture and the fake Ollama.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunner, SKILL_TOOL_NAME } from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, temporaryHome, type TemporaryHome } from '../support/cli.js';

let ollama: FakeOllama | undefined;
let home: TemporaryHome | undefined;

afterEach(async () => {
  await ollama?.close();
  await home?.remove();
});

describe('runner.skills', () => {
  it("lists the user's and the servers' skills, and the model loads one", async () => {
    home = await temporaryHome();
    const config = join(home.path, 'config-home');
    await mkdir(join(config, 'mcphost', 'skills', 'notes'), { recursive: true });
    await writeFile(
      join(config, 'mcphost', 'skills', 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Takes notes\n---\nWrite NOTES-BLUE-3.\n',
    );
    ollama = await startFakeOllama([
      toolCallReply([SKILL_TOOL_NAME, { name: 'notes' }]),
      (request) => textReply(request.messages.at(-1)?.content ?? ''),
    ]);
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      homeDir: home.path,
      // XDG_CONFIG_HOME is honoured: the user's skills are under it, not under ~/.config.
      env: { XDG_CONFIG_HOME: config },
      mcpServers: {
        docs: {
          command: process.execPath,
          args: [join(REPOSITORY, 'test/fixtures/servers/skills-server.mjs')],
        },
      },
    });
    const skills = await runner.skills.list();
    expect(skills.map((skill) => `${skill.name} (${skill.source.kind})`)).toEqual([
      'notes (user)',
      'docs:pdf-processing (server)',
      'docs:lying-digest (server)',
      'docs:lying-size (server)',
      'docs:lying-frontmatter (server)',
    ]);
    const result = await runner.run('take notes');
    expect(result.text).toContain('Write NOTES-BLUE-3.');
    expect(result.toolCalls[0]?.result.isError).toBe(false);
  });
});
