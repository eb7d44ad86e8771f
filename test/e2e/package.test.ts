/**
 * The package as users get it: `npm pack` in a fresh copy of the sources (its `prepack` builds
 * dist/), install the tarball into a fresh project, import it by name from an ESM program and from
 * a type-checked TypeScript file; install it globally into a temporary prefix and run `mcphost`;
 * run it with `npx <tarball>`.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY } from '../support/cli.js';

const run = promisify(execFile);
let project: string;
let clone: string;
let tarballPath: string;
let packed: { files: Array<{ path: string }> };

/**
 * The files git knows, copied as they are now (a fresh clone without dist/), with the repository's
 * node_modules linked in: packing there runs `prepack` without touching the dist/ other tests use.
 */
async function freshCopy(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'mcphost-clone-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPOSITORY,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter((name) => name !== '')) {
    await cp(join(REPOSITORY, file), join(folder, file), { recursive: true }).catch(() => undefined);
  }
  await symlink(join(REPOSITORY, 'node_modules'), join(folder, 'node_modules'), 'dir');
  return folder;
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'mcphost-consumer-'));
  clone = await freshCopy();
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], {
    cwd: clone,
    maxBuffer: 16 * 1024 * 1024,
  });
  // prepack's build prints its own lines before npm's JSON.
  packed = (JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<typeof packed>)[0]!;
  const tarball = (await readdir(project)).find((name) => name.endsWith('.tgz'))!;
  tarballPath = join(project, tarball);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  // Dependencies come from npm's cache when `npm ci` already ran here (CI), else from the registry.
  await run(
    'npm',
    ['install', `./${tarball}`, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    {
      cwd: project,
    },
  );
}, 240_000);

// The consumer's folder holds two installs of the package (its own and a global prefix, ~180 MB each):
// removing it took more than the default 30 s on a loaded machine (a CI run of 2026-11-29).
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(clone, { recursive: true, force: true });
}, 120_000);

describe('the published package', () => {
  it('installs globally into a prefix and runs as mcphost', async () => {
    const prefix = join(project, 'prefix');
    await run(
      'npm',
      ['install', '-g', '--prefix', prefix, tarballPath, '--prefer-offline', '--no-audit', '--no-fund'],
      {
        cwd: project,
      },
    );
    const mcphost = join(prefix, 'bin', 'mcphost');
    const env = { PATH: process.env.PATH ?? '', HOME: project };
    expect((await run(mcphost, ['--version'], { env })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await run(mcphost, ['--help'], { env })).stdout).toContain('mcphost mcp');
    // A command that reads and writes a config: the whole CLI is there, not only its help.
    await run(mcphost, ['mcp', 'add', 'x', '--', 'node', 'server.js'], { env });
    expect((await run(mcphost, ['mcp', 'list', '--names'], { env })).stdout).toBe('x\n');
  }, 240_000);

  it('runs with npx and the tarball', async () => {
    const { stdout } = await run(
      'npx',
      ['--yes', '--prefer-offline', '--package', tarballPath, 'mcphost', '--version'],
      {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: project,
          npm_config_cache: join(project, 'npm-cache'),
          // The machine's extra certificate authorities (a TLS-inspecting proxy): the registry's Node
          // 24 reads only its own store and Node 20 here the system's, so without them npx on Node 24
          // waits on the registry until the test times out.
          ...(process.env.NODE_EXTRA_CA_CERTS === undefined
            ? {}
            : { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }),
        },
      },
    );
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 240_000);

  it('ships the built library and CLI, and neither sources nor tests', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain('dist/src/index.js');
    expect(paths).toContain('dist/src/index.d.ts');
    expect(paths).toContain('dist/bin/mcphost.js');
    expect(paths).toContain('README.md');
    expect(
      paths.filter((path) => /^(src|test|providers|config)\/|^dist\/test\/|\.test\./.test(path)),
    ).toEqual([]);
  });

  it('is importable by name from an ESM program, errors included', async () => {
    await writeFile(
      join(project, 'program.mjs'),
      `import { Runner, createRunner, ConfigError, McpHostError, DEFAULT_MAX_STEPS } from 'mcphost';
const provider = {
  name: 'inline', model: 'm',
  async *chat() { yield { type: 'text-delta', text: 'hi from a custom provider' }; yield { type: 'finish', reason: 'stop' }; },
};
const runner = new Runner({ provider });
const result = await runner.run('hello');
let error;
try { await createRunner({ model: 'nope:model', mcpServers: {} }); } catch (caught) { error = caught; }
console.log(JSON.stringify({
  text: result.text,
  steps: DEFAULT_MAX_STEPS,
  configError: error instanceof ConfigError && error instanceof McpHostError,
  message: error?.message,
}));
`,
    );
    const { stdout } = await run(process.execPath, ['program.mjs'], { cwd: project });
    const output = JSON.parse(stdout) as {
      text: string;
      steps: number;
      configError: boolean;
      message: string;
    };
    expect(output).toMatchObject({ text: 'hi from a custom provider', steps: 20, configError: true });
    expect(output.message).toContain('unknown provider "nope"');
  });

  it('is requirable by name from a CommonJS program (Node 20.19+ loads the ES module synchronously)', async () => {
    await writeFile(
      join(project, 'program.cjs'),
      `const { Runner, DEFAULT_MAX_STEPS, McpHostError } = require('mcphost');
const provider = {
  name: 'inline', model: 'm',
  async *chat() { yield { type: 'text-delta', text: 'hi from require' }; yield { type: 'finish', reason: 'stop' }; },
};
new Runner({ provider }).run('hello').then((result) => {
  console.log(JSON.stringify({ text: result.text, steps: DEFAULT_MAX_STEPS, errors: typeof McpHostError }));
});
`,
    );
    const { stdout, stderr } = await run(process.execPath, ['program.cjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ text: 'hi from require', steps: 20, errors: 'function' });
    expect(stderr).not.toContain('ERR_');
  });

  it('type-checks a TypeScript program against its declarations', async () => {
    await mkdir(join(project, 'typed'), { recursive: true });
    await writeFile(
      join(project, 'typed', 'program.ts'),
      `import { Runner, type Provider, type ProviderEvent, type RunResult, type RunnerEvent } from 'mcphost';
const provider: Provider = {
  name: 'typed', model: 'm',
  async *chat(): AsyncIterable<ProviderEvent> { yield { type: 'finish', reason: 'stop' }; },
};
const runner = new Runner({ provider, maxSteps: 3 });
const result: RunResult = await runner.run('x');
const reason: 'end' | 'length' | 'content-filter' = result.stopReason;
for await (const event of runner.stream('y')) {
  const kind: RunnerEvent['type'] = event.type;
  void kind;
}
// @ts-expect-error maxSteps must be a number
new Runner({ provider, maxSteps: 'many' });
export { reason };
`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(REPOSITORY, 'node_modules/@types')],
        },
        include: ['typed'],
      }),
    );
    const tsc = join(REPOSITORY, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: unknown) => error as { stdout: string },
    );
    expect(checked.stdout).toBe('');
    // Type-checking the declarations of every dependency (skipLibCheck off) is slow on a busy machine.
  }, 180_000);
});
