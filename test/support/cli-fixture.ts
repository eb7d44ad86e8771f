/**
 * The set-up the CLI end-to-end tests all share, registered once per file: a temporary HOME for
 * each test (with its `.mcp.json`), a fake Ollama the test starts when it knows its script, and
 * temporary folders; all of it closed and removed after each test, also when the test failed midway.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import {
  startFakeOllama,
  type FakeOllama,
  type FakeOllamaOptions,
  type FakeOllamaScriptItem,
} from '../fakes/ollama-server.js';
import { temporaryHome, type TemporaryHome } from './cli.js';

export interface CliFixtureSetup {
  /** Written as the HOME's `.mcp.json` before each test; no file when left out. */
  readonly config?: unknown;
}

export interface CliFixture {
  /** This test's HOME. */
  readonly home: TemporaryHome;
  /** This test's fake model; throws when the test has not started one. */
  readonly model: FakeOllama;
  /** Whether this test's fake model is running. */
  readonly hasModel: boolean;
  /** Starts this test's fake model (closed after the test). */
  startModel(script?: readonly FakeOllamaScriptItem[], options?: FakeOllamaOptions): Promise<FakeOllama>;
  /** Closes the fake model now, for a test that goes on with another one. */
  closeModel(): Promise<void>;
  /** A new folder under the system's temporary folder, its name starting with `prefix`, removed after the test. */
  temporaryFolder(prefix: string): Promise<string>;
}

/**
 * The fixture, with `closeFirst` run at each test's end before the model and the HOME go (the
 * chat's terminal, which uses both). Steps that fail do not stop the others; the first failure is
 * rethrown.
 */
export function cliFixture(setup: CliFixtureSetup, closeFirst?: () => Promise<void>): CliFixture {
  let home: TemporaryHome | undefined;
  let model: FakeOllama | undefined;
  let folders: string[] = [];

  beforeEach(async () => {
    home = await temporaryHome();
    if (setup.config !== undefined) await home.writeConfig(setup.config);
  });
  afterEach(async () => {
    const [openModel, openHome, openFolders] = [model, home, folders];
    [model, home, folders] = [undefined, undefined, []];
    const failures: unknown[] = [];
    for (const step of [
      closeFirst,
      () => openModel?.close(),
      ...openFolders.map((folder) => () => rm(folder, { recursive: true, force: true })),
      () => openHome?.remove(),
    ]) {
      try {
        await step?.();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  });

  return {
    get home() {
      if (home === undefined) throw new Error('cli fixture: the HOME exists only while a test runs');
      return home;
    },
    get model() {
      if (model === undefined) throw new Error('cli fixture: start the fake model first (startModel)');
      return model;
    },
    get hasModel() {
      return model !== undefined;
    },
    async startModel(script = [], options = {}) {
      if (model !== undefined) throw new Error('cli fixture: a fake model runs already (closeModel first)');
      model = await startFakeOllama(script, options);
      return model;
    },
    async closeModel() {
      const open = model;
      model = undefined;
      await open?.close();
    },
    async temporaryFolder(prefix) {
      const folder = await mkdtemp(join(tmpdir(), prefix));
      folders.push(folder);
      return folder;
    },
  };
}

/** Registers the fixture's `beforeEach`/`afterEach` in the calling file (or describe block). */
export function useCliFixture(setup: CliFixtureSetup = {}): CliFixture {
  return cliFixture(setup);
}
