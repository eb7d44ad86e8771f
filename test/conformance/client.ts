/**
 * The client under test for the official MCP conformance suite (`npm run conformance`).
 *
 * The suite starts a scenario's test server, then runs this file with the server's URL as the
 * last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO. It drives mcphost's own MCP
 * layer — the McpPool, its connections, negotiation and transports, exactly as the CLI builds
 * them — and plays the part of the model: it lists the tools and calls the ones the scenario asks
 * for, through the pool's exposed `server__tool` names. Anything a scenario needs beyond tools
 * (resources, prompts) goes through the pool's live SDK client of the server.
 *
 * Authorization scenarios (auth/*) run mcphost's real sign-in (src/mcp/auth/): the pool's sign-in
 * step asks the `signIn` question, and the answer here plays the person's browser — it fetches the
 * authorization URL and follows its redirects, which end at mcphost's loopback listener. Tokens
 * go to a sign-in store in a fresh temporary folder, so every scenario starts signed out.
 *
 * With MCPHOST_CONFORMANCE_SIGN_IN=auth-login (run.ts sets it for a second run of some auth
 * scenarios), the sign-in is done first by the real `mcphost auth login` command, in a child
 * process with a throw-away HOME whose `.mcp.json` names the server, the browser played the same
 * way from the URL it prints; the pool then starts with no one to ask, so the scenario passes only
 * if the command's sign-in worked.
 *
 * Elicitations are answered as `-p` and a library runner answer them when nobody can be asked,
 * with the `accept-defaults` policy (the `elicitation` config option): a form whose required
 * fields all have defaults is accepted with the schema's defaults, anything else declined.
 *
 * Exit 0 when the script ran; 1 with one line on stderr when it could not. The suite judges the
 * wire traffic, not this exit code alone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpPool, type PoolLogEntry } from '../../src/mcp/pool.js';
import type { OAuthSettings } from '../../src/mcp/definition.js';
import { defaultSignInStorePath, SignInStore } from '../../src/mcp/auth/token-store.js';
import { messageOf } from '../../src/core/errors.js';
import { configureClientFor } from '../../src/mcp/client-features.js';
import { createElicitationHandler } from '../../src/mcp/elicitation.js';
import {
  QuestionQueue,
  type SignInDecision,
  type SignInRequest,
  type UserQuestions,
} from '../../src/core/questions.js';
import type { ToolCallBlock, ToolResultBlock } from '../../src/core/types.js';
import { SkillLibrary } from '../../src/mcp/skills/skill-library.js';
import { SKILL_TOOL_NAME, SkillToolHost } from '../../src/mcp/skills/skill-tool.js';

/** The one configured server's name: tools are exposed as `conformance__<tool>`. */
const SERVER = 'conformance';

interface PlannedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (url === undefined || !/^https?:\/\//.test(url)) {
  process.stderr.write(
    `conformance client: expected the server URL as the last argument, got ${String(url)}\n`,
  );
  process.exit(1);
}

const log = (entry: PoolLogEntry): void => {
  process.stderr.write(`[${entry.level}] ${entry.server}: ${entry.message}\n`);
};

let callCount = 0;
async function call(pool: McpPool, planned: PlannedCall): Promise<ToolResultBlock> {
  callCount += 1;
  const block: ToolCallBlock = {
    type: 'tool-call',
    id: `call-${callCount}`,
    name: `${SERVER}__${planned.name}`,
    input: planned.arguments,
  };
  const result = await pool.call(block);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
  process.stderr.write(`${planned.name} → ${result.isError ? 'error' : 'ok'}: ${text.slice(0, 300)}\n`);
  return result;
}

/** What the suite hands over in MCP_CONFORMANCE_CONTEXT: tool calls, or a pre-registered client. */
interface ScenarioContext {
  readonly toolCalls?: PlannedCall[];
  readonly client_id?: string;
  readonly client_secret?: string;
}

function scenarioContext(): ScenarioContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (raw === undefined || raw === '') return {};
  return JSON.parse(raw) as ScenarioContext;
}

/** Tool calls the suite hands over (`{ toolCalls: [...] }`), if any. */
function contextCalls(): readonly PlannedCall[] | undefined {
  return scenarioContext().toolCalls;
}

/**
 * The client ID metadata document URL the suite's CIMD scenario expects a client to use (its
 * authorization server accepts it without fetching it). Offered in every scenario: the SDK uses
 * it only where the authorization server says `client_id_metadata_document_supported`.
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** mcphost's `oauth` settings for the scenario, as a user would write them in `.mcp.json`. */
function oauthSettings(): OAuthSettings {
  const { client_id: clientId, client_secret: clientSecret } = scenarioContext();
  return {
    grant: 'authorization_code',
    clientMetadataUrl: CLIENT_METADATA_URL,
    // auth/pre-registration: the client registered beforehand, handed over by the suite.
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
  };
}

/**
 * The person's browser: opens the authorization page and follows every redirect. The suite's
 * authorization server redirects straight back (no login form), to mcphost's loopback listener,
 * which answers the final request itself. The fetch runs in the background, as a browser would;
 * the sign-in waits for the listener, not for this.
 */
const followingBrowser: UserQuestions = {
  signIn: (request: SignInRequest): Promise<SignInDecision> => {
    process.stderr.write(`sign-in for ${request.server}: following the authorization URL\n`);
    void fetch(request.url, { redirect: 'follow', signal: request.signal })
      .then(async (response) => {
        await response.arrayBuffer();
        process.stderr.write(`sign-in: the browser ended at HTTP ${response.status}\n`);
      })
      .catch((error: unknown) => {
        process.stderr.write(`sign-in: the browser failed: ${messageOf(error)}\n`);
      });
    return Promise.resolve({ kind: 'opened' });
  },
};

/** The tool names the pool offers, without the server prefix. */
async function offeredTools(pool: McpPool): Promise<readonly string[]> {
  const described = await pool.describeTools();
  return described.map((tool) => tool.tool);
}

async function runScenario(pool: McpPool): Promise<void> {
  const planned = contextCalls();
  if (planned !== undefined) {
    for (const entry of planned) await call(pool, entry);
    return;
  }
  const tools = await offeredTools(pool);
  switch (scenario) {
    case 'initialize':
    case 'json-schema-ref-no-deref':
    case 'request-metadata':
      // Starting lists the tools: nothing else is asked of the client.
      return;
    case 'tools_call':
    case 'sse-retry':
      for (const tool of tools) await call(pool, { name: tool, arguments: { a: 2, b: 3 } });
      return;
    case 'json-schema-2020-12-preservation': {
      const specs = await pool.tools();
      const focal = specs.find((spec) => spec.name === `${SERVER}__json_schema_2020_12_tool`);
      if (focal === undefined) throw new Error('the tool json_schema_2020_12_tool is not offered');
      await call(pool, { name: 'json_schema_echo', arguments: { schema: focal.inputSchema } });
      return;
    }
    case 'http-standard-headers':
      await standardHeaders(pool, tools);
      return;
    case 'sep-2640-client-no-prefetch':
    case 'sep-2640-client-verify-digest':
    case 'sep-2640-client-verify-size':
    case 'sep-2640-client-verify-frontmatter':
      await useSkills(pool, scenario !== 'sep-2640-client-no-prefetch');
      return;
    default:
      // Scenarios not scripted here (authorization, elicitation): call every tool once, as a
      // model exploring the server might.
      for (const tool of tools) await call(pool, { name: tool, arguments: {} });
  }
}

/** Exercises every request kind that carries `Mcp-Method` / `Mcp-Name`. */
async function standardHeaders(pool: McpPool, tools: readonly string[]): Promise<void> {
  for (const tool of tools) await call(pool, { name: tool, arguments: {} });
  const client = await pool.client(SERVER);
  const capabilities = client.getServerCapabilities();
  if (capabilities?.resources !== undefined) {
    const { resources } = await client.listResources();
    for (const resource of resources) await client.readResource({ uri: resource.uri });
  }
  if (capabilities?.prompts !== undefined) {
    const { prompts } = await client.listPrompts();
    for (const prompt of prompts) await client.getPrompt({ name: prompt.name, arguments: {} });
  }
}

/** The browser's part for `auth login`: follow the authorization URL the command prints. */
function browseTo(authorizationUrl: string): void {
  void followingBrowser.signIn?.({
    server: SERVER,
    url: authorizationUrl,
    signal: AbortSignal.timeout(60_000),
  });
}

/**
 * Runs `mcphost auth login conformance` as a user would (HOME = `home`, the server in its
 * `.mcp.json`), through tsx like the rest of this client, and plays the browser for it.
 */
async function authLogin(home: string, serverUrl: string): Promise<void> {
  const oauth = oauthSettings();
  writeFileSync(
    join(home, '.mcp.json'),
    JSON.stringify({ mcpServers: { [SERVER]: { type: 'http', url: serverUrl, oauth } } }),
  );
  const executable = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/cli/executable.ts');
  const script = `const { runExecutable } = await import(${JSON.stringify(executable)}); await runExecutable();`;
  const child = spawn(
    process.execPath,
    // tsx by its resolved URL: the command runs from the throw-away HOME, outside this project.
    [
      '--import',
      import.meta.resolve('tsx'),
      '--input-type=module',
      '-e',
      script,
      '--',
      'mcphost',
      'auth',
      'login',
      SERVER,
    ],
    { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let opened = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(`auth login: ${chunk.toString()}`);
    const printed = /^\s+(https?:\/\/\S+)$/m.exec(stderr)?.[1];
    if (printed !== undefined && !opened) {
      opened = true;
      browseTo(printed);
    }
  });
  child.stdout.on('data', (chunk: Buffer) =>
    process.stderr.write(`auth login (stdout): ${chunk.toString()}`),
  );
  const code = await new Promise<number | null>((done) => child.once('close', done));
  if (code !== 0) throw new Error(`mcphost auth login exited ${String(code)}: ${stderr.trim()}`);
}

/**
 * Skills (SEP-2640) as the CLI offers them: the host's `skill` tool over the pool, its description
 * listing the skills (`skills/list`, nothing read). With `use`, the model loads each skill and then
 * asks for each of its files: a skill whose SKILL.md fails verification must not be loaded, and
 * none of its files read.
 */
async function useSkills(pool: McpPool, use: boolean): Promise<void> {
  const library = new SkillLibrary({
    servers: pool,
    onWarning: (message) => process.stderr.write(`skills: ${message}\n`),
  });
  const host = new SkillToolHost({ inner: pool, library });
  const offered = (await host.tools()).find((tool) => tool.name === SKILL_TOOL_NAME);
  process.stderr.write(`skill tool: ${offered?.description ?? '(not offered)'}\n`);
  if (!use) return;
  for (const skill of await library.list()) {
    // The scenario's supporting file: a model that went on despite a refused SKILL.md would ask
    // for it, and the host must not read it.
    const files = ['references/FORMS.md'];
    for (const input of [{ name: skill.name }, ...files.map((file) => ({ name: skill.name, file }))]) {
      callCount += 1;
      const result = await host.call({
        type: 'tool-call',
        id: `call-${callCount}`,
        name: SKILL_TOOL_NAME,
        input,
      });
      const text = result.content
        .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
        .join(' ');
      process.stderr.write(
        `skill ${JSON.stringify(input)} → ${result.isError ? 'error' : 'ok'}: ${text.slice(0, 300)}\n`,
      );
    }
  }
}

const stateFolder = mkdtempSync(join(tmpdir(), 'mcphost-conformance-'));
const viaAuthLogin = process.env.MCPHOST_CONFORMANCE_SIGN_IN === 'auth-login';
if (viaAuthLogin) await authLogin(stateFolder, url);
const pool = await McpPool.start({
  servers: { [SERVER]: { transport: 'http', url, headers: {}, oauth: oauthSettings() } },
  env: {},
  log,
  // After `auth login`, the pool has no one to ask: the tokens the command stored must do.
  signIn: viaAuthLogin
    ? { store: new SignInStore(defaultSignInStorePath(stateFolder, { HOME: stateFolder })) }
    : { store: new SignInStore(join(stateFolder, 'sign-in.json')), questions: followingBrowser },
  clientInfo: { name: 'mcphost-conformance', version: '0.0.0' },
  configureClient: configureClientFor({
    // As the CLI: the skills extension is declared to every server.
    skills: true,
    elicit: createElicitationHandler({
      questions: undefined,
      queue: new QuestionQueue(),
      policy: 'accept-defaults',
      onOutcome: (outcome) => {
        const reason = outcome.reason === undefined ? '' : ` (${outcome.reason})`;
        process.stderr.write(`elicitation (${outcome.mode}) → ${outcome.action}${reason}\n`);
      },
    }),
  }),
  // The suite runs every scenario at once: on a small CI machine a start can take a while.
  initTimeoutMs: 60_000,
  toolTimeoutMs: 60_000,
});
let failure: unknown;
try {
  const status = pool.status()[0];
  if (status?.state !== 'ready')
    throw new Error(`the server did not start: ${status?.lastError ?? 'unknown'}`);
  await runScenario(pool);
} catch (error) {
  failure = error;
} finally {
  await pool.close();
  rmSync(stateFolder, { recursive: true, force: true });
}
if (failure !== undefined) {
  process.stderr.write(`conformance client (${scenario}): ${messageOf(failure)}\n`);
}
// Exit as the CLI does once the pool is closed, rather than wait for the last idle socket.
process.exit(failure === undefined ? 0 : 1);
