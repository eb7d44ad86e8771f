/**
 * The server SDK is loaded only when a built-in server is configured: `mcphost --help` and a `-p`
 * run without built-in servers never load `@modelcontextprotocol/server`. "Loaded" means "ran": V8's
 * coverage of the built CLI says which modules had a function run (test/support/modules-run.ts),
 * whatever the executable's packaging, where a module loader hook would see neither a bundle's
 * insides nor `require()`. A run with `--builtin` is the control that shows the record would contain
 * the SDK if it ran.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { modulesRunBy } from '../support/modules-run.js';

/** The server SDK's own package (not `server-everything` and the like, other packages). */
const SERVER_SDK = '@modelcontextprotocol/server';

const fixture = useCliFixture();

describe('the server SDK stays unloaded without built-in servers', () => {
  it('mcphost --help does not load it', async () => {
    const { run, modules } = await modulesRunBy(['--help'], fixture.home.path);
    expect(run.code).toBe(0);
    // The record holds the CLI's own code, so no SDK in it means "did not run", not "not recorded".
    expect(modules).toContain('src/cli/main.js');
    expect(modules).not.toContain(SERVER_SDK);
    // Nor the `ollama` client (bundled, but evaluated only when the provider is made).
    expect(modules).not.toContain('ollama');
    expect(modules).not.toContain('providers/ollama-connection.js');
  });

  it('a -p run without built-in servers does not load it; one with --builtin does', async () => {
    const ollama = await fixture.startModel([textReply('plain answer'), textReply('todo answer')]);
    const common = ['-m', 'ollama:qwen2.5:3b', '--provider-url', ollama.url];

    const plain = await modulesRunBy(['-p', 'hello', ...common], fixture.home.path);
    expect(plain.run.code).toBe(0);
    expect(plain.run.stdout).toContain('plain answer');
    // Recorded: the CLI, and the run's own code it imports on demand (the MCP client SDK does not
    // run either when no server is configured, so it cannot serve as the witness here).
    expect(plain.modules).toContain('src/cli/main.js');
    expect(plain.modules).toContain('src/cli/run-command.js');
    expect(plain.modules).not.toContain(SERVER_SDK);

    const builtin = await modulesRunBy(['-p', 'hello', '--builtin', 'todo', ...common], fixture.home.path);
    expect(builtin.run.code).toBe(0);
    expect(builtin.run.stdout).toContain('todo answer');
    expect(builtin.modules).toContain(SERVER_SDK);
  });
});
