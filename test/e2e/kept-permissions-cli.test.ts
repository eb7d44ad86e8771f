/**
 * "Always allow" answers kept per project folder, end to end: the built CLI, the loopback fake
 * Ollama and server-everything. A chat on a pipe answers `tk`; the store in the state folder holds
 * it; the next runs in that folder (a chat, and -p, where no one can be asked) run the tool without
 * a question; another folder still asks. A kept answer never lifts a deny rule, and none is kept
 * for bash (asked every run). A store that is not a kept-permissions file stops the run with one
 * line naming it, and is never overwritten.
 */
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import {
  EVERYTHING_SERVER,
  runCli,
  startCli,
  temporaryHome,
  type CliRun,
  type TemporaryHome,
} from '../support/cli.js';
import { unwrapped } from '../support/untrusted.js';

let home: TemporaryHome;
let ollama: FakeOllama;
let project: string;
let elsewhere: string;
let store: string;

const QUESTION = 'Allow? [y] once';
const NEEDS_APPROVAL = "needs the user's approval";
/** When an answer was kept: an ISO time. */
const KEPT_AT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d/) as unknown;

beforeEach(async () => {
  home = await temporaryHome();
  project = join(home.path, 'project');
  elsewhere = join(home.path, 'elsewhere');
  await mkdir(project);
  await mkdir(elsewhere);
  store = join(home.path, '.local/state/mcphost/permissions.json');
  await home.writeConfig({
    mcpServers: { everything: EVERYTHING_SERVER },
    approval: { default: 'allow', rules: [{ tool: 'everything__echo', decision: 'ask' }] },
  });
  // A prompt "bash …" makes the model run a command, any other call echo; with a result, it
  // repeats what it was told.
  ollama = await startFakeOllama([], {
    fallback: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return textReply(`model saw: ${unwrapped(last.content).replace(/\s+/g, ' ')}`);
      const prompt = last?.content ?? '';
      return prompt.startsWith('bash')
        ? toolCallReply(['bash__run_command', { command: `echo ran ${prompt.slice(5)}` }])
        : toolCallReply(['everything__echo', { message: `echo of ${prompt}` }]);
    },
  });
});
afterEach(async () => {
  await ollama.close();
  await home.remove();
});

function oneShot(prompt: string, cwd: string): Promise<CliRun> {
  return runCli(['-p', prompt, '--provider-url', ollama.url], home.path, { cwd });
}

/** A chat on a pipe in `cwd`: sends `prompt`, answers a question with `answer` if one comes, quits. */
async function chatOnce(
  prompt: string,
  cwd: string,
  answer?: string,
  flags: readonly string[] = [],
): Promise<CliRun> {
  const chat = startCli(['--provider-url', ollama.url, ...flags], home.path, { cwd });
  chat.child.stdin.write(`${prompt}\n`);
  if (answer !== undefined) {
    await chat.waitForStdout((stdout) => stdout.includes(QUESTION));
    chat.child.stdin.write(`${answer}\n`);
  }
  await chat.waitForStdout((stdout) => stdout.includes(`model saw: `));
  chat.child.stdin.end('/quit\n');
  return chat.done;
}

async function storedProjects(): Promise<Record<string, unknown>> {
  const stored = JSON.parse(await readFile(store, 'utf8')) as { projects: Record<string, unknown> };
  return stored.projects;
}

// Several runs of mcphost each (a few seconds apiece): more time than one run's default.
describe('kept permissions through the CLI', () => {
  it('keeps a tk answer for its folder: later runs there skip the question, other folders ask', async () => {
    const kept = await chatOnce('first', project, 'tk');
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(QUESTION);
    expect(kept.stdout).toContain('model saw: Echo: echo of first');
    expect(await storedProjects()).toEqual({
      [await realpath(project)]: [{ kind: 'tool', server: 'everything', tool: 'echo', keptAt: KEPT_AT }],
    });

    // A new chat in the same folder: the tool runs and nothing is asked.
    const again = await chatOnce('second', project);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('model saw: Echo: echo of second');
    expect(again.stdout).not.toContain(QUESTION);

    // -p, where no one can be asked: the kept answer stands in for the user's.
    const script = await oneShot('third', project);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('model saw: Echo: echo of third');

    // Another folder has nothing kept: -p refuses, and a chat asks.
    const other = await oneShot('fourth', elsewhere);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain(NEEDS_APPROVAL);
    expect(other.stdout).not.toContain('Echo: echo of fourth');
    const otherChat = await chatOnce('fifth', elsewhere, 'n not here');
    expect(otherChat.stdout).toContain(QUESTION);
    expect(otherChat.stdout).not.toContain('Echo: echo of fifth');
    // Neither run added anything for its folder.
    expect(Object.keys(await storedProjects())).toEqual([await realpath(project)]);
  }, 60_000);

  it('keeps sk for every tool of the server; plain t is for the session only', async () => {
    const session = await chatOnce('first', project, 't');
    expect(session.stdout).toContain('model saw: Echo: echo of first');
    // Nothing was written: a session's answer lives in that chat only.
    await expect(readFile(store, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await oneShot('second', project)).stdout).toContain(NEEDS_APPROVAL);

    await chatOnce('third', project, 'sk');
    expect(await storedProjects()).toEqual({
      [await realpath(project)]: [{ kind: 'server', server: 'everything', keptAt: KEPT_AT }],
    });
    expect((await oneShot('fourth', project)).stdout).toContain('model saw: Echo: echo of fourth');
  }, 60_000);

  it('never lifts a deny rule: a kept answer only stands in for a question', async () => {
    await chatOnce('first', project, 'sk');
    expect(Object.keys(await storedProjects())).toEqual([await realpath(project)]);
    await home.writeConfig({
      mcpServers: { everything: EVERYTHING_SERVER },
      approval: { default: 'allow', rules: [{ tool: 'everything__echo', decision: 'deny' }] },
    });
    const denied = await oneShot('second', project);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain("The user's approval policy does not allow everything__echo");
    expect(denied.stdout).not.toContain('Echo: echo of second');
  });

  it('does not keep an answer for bash, which asks before every call: it lasts for that chat', async () => {
    const first = await chatOnce('bash one', project, 'tk', ['--builtin', 'bash']);
    expect(first.stdout).toContain('model saw: ran one');
    expect(first.stderr).toContain(
      'warning: not kept for this folder: bash asks before every call, in every run; allowed for this session',
    );
    await expect(readFile(store, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    const second = await chatOnce('bash two', project, 'y', ['--builtin', 'bash']);
    expect(second.stdout).toContain(QUESTION);
    expect(second.stdout).toContain('model saw: ran two');
  });

  it('does not overwrite a store broken while a chat runs: the answer lasts for that chat, with a warning', async () => {
    const chat = startCli(['--provider-url', ollama.url], home.path, { cwd: project });
    chat.child.stdin.write('first\n');
    await chat.waitForStdout((stdout) => stdout.includes(QUESTION));
    // Another program (or a hand) breaks the store between the start and the answer.
    await mkdir(join(home.path, '.local/state/mcphost'), { recursive: true });
    await writeFile(store, '{"version": 1, "projects": {');
    chat.child.stdin.write('tk\n');
    await chat.waitForStdout((stdout) => stdout.includes('model saw: Echo: echo of first'));
    chat.child.stdin.write('second\n');
    await chat.waitForStdout((stdout) => stdout.includes('model saw: Echo: echo of second'));
    chat.child.stdin.end('/quit\n');
    const run = await chat.done;
    expect(run.code).toBe(0);
    // Asked once: the answer still held for the rest of the chat.
    expect(run.stdout.split(QUESTION)).toHaveLength(2);
    expect(run.stderr).toContain(`warning: not kept for this folder: ${store}: not JSON`);
    expect(await readFile(store, 'utf8')).toBe('{"version": 1, "projects": {');
  });

  it.each([
    ['not JSON', '{"version": 1, "projects": {', /not JSON/],
    [
      'not a kept-permissions file',
      '{"version": 2, "projects": {}}',
      /not a kept-permissions file at version/,
    ],
  ])('stops on a store that is %s, in one line naming it, and leaves it as it was', async (_, text, why) => {
    await mkdir(join(home.path, '.local/state/mcphost'), { recursive: true });
    await writeFile(store, text);
    const script = await oneShot('first', project);
    const chat = await runCli(['--provider-url', ollama.url], home.path, {
      cwd: project,
      stdin: 'x\n/quit\n',
    });
    for (const run of [script, chat]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(why);
      expect(run.stderr.startsWith(`mcphost: ${store}: `)).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(ollama.chatRequests).toHaveLength(0);
    expect(await readFile(store, 'utf8')).toBe(text);
  });
});
