/**
 * One end-to-end fuzz run: a vendor fake serves a generated stream (from vendor-stream-fuzz.ts) as
 * the first answer and "ok" after it; the built CLI runs `-p` against it with the good-server
 * fixture as its MCP server; the outcome is checked the way a user of `-p` would need it to hold.
 */
import { fileURLToPath } from 'node:url';
import { startFakeAnthropic } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini } from '../fakes/gemini-server.js';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { validateChatBody } from '../fakes/ollama-validation.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { validateChatRequest } from '../fakes/openai-validation.js';
import { startCli } from './cli.js';
import type { StreamKind } from './cli-fuzz-summary.js';
import {
  anthropicEvents,
  geminiChunks,
  ollamaChunks,
  openAIChunks,
  streamKind,
  type GeneratedAnswer,
  type Vendor,
} from './vendor-stream-fuzz.js';

/** The fixture server's name in the config, so its echo tool is offered as `good__echo`. */
export const FIXTURE_CONFIG = {
  mcpServers: {
    good: {
      command: process.execPath,
      args: [fileURLToPath(new URL('../fixtures/servers/good-server.mjs', import.meta.url))],
    },
  },
};

export interface CliFuzzOutcome {
  /** The exit code, or `timeout` when the run was killed, or `signal NAME`. */
  readonly exit: string;
  /** What broke the contract, or undefined. */
  readonly problem: string | undefined;
  /** How many model requests the fake received (2+ means the run continued after the stream). */
  readonly requests: number;
  /** What the CLI wrote to stderr (empty after a timeout). */
  readonly stderr: string;
  /** Whether the fake served the whole stream, or a cut or reordered one. */
  readonly stream: StreamKind;
}

/** A running fake, reduced to what a run needs: where it is and why it refused any request. */
interface VendorFake {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  requestCount(): number;
  /** The first refusal of a chat request by the vendor's validation, or undefined. */
  rejection(): string | undefined;
  close(): Promise<void>;
}

/** The generated streams call `echo`; the CLI offers it under its server's prefix. */
function withExposedNames(answer: GeneratedAnswer): GeneratedAnswer {
  return {
    ...answer,
    calls: answer.calls.map((call) => (call.name === 'echo' ? { ...call, name: 'good__echo' } : call)),
  };
}

async function startVendorFake(vendor: Vendor, answer: GeneratedAnswer): Promise<VendorFake> {
  switch (vendor) {
    case 'anthropic': {
      const events = anthropicEvents(answer) as Array<Record<string, unknown>>;
      // The fake sends its own message_start first.
      const rest = events[0]?.type === 'message_start' ? events.slice(1) : events;
      const fake = await startFakeAnthropic((_request, index) =>
        index === 0
          ? { type: 'events', events: rest }
          : { type: 'answer', content: [{ type: 'text', text: 'ok' }] },
      );
      return {
        args: ['-m', 'anthropic:claude-sonnet-4-5', '--provider-url', fake.url],
        env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
        requestCount: () => fake.requests.length,
        rejection: () => fake.requests.find((request) => request.rejected)?.rejected?.message,
        close: () => fake.close(),
      };
    }
    case 'openai': {
      const fake = await startFakeOpenAI((_request, index) =>
        index === 0 ? { type: 'chunks', chunks: openAIChunks(answer) } : { type: 'text', text: 'ok' },
      );
      return {
        args: ['-m', 'openai:gpt-4.1-mini'],
        env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url },
        requestCount: () => fake.requests.length,
        rejection: () =>
          fake.requests.map((request) => validateChatRequest(request.body)?.message).find(Boolean),
        close: () => fake.close(),
      };
    }
    case 'google': {
      const fake = await startFakeGemini((_request, index) =>
        index === 0
          ? { type: 'chunks', chunks: geminiChunks(answer) }
          : { type: 'answer', parts: [{ type: 'text', text: 'ok' }] },
      );
      return {
        args: ['-m', 'gemini:gemini-2.5-flash', '--provider-url', fake.url],
        env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
        requestCount: () => fake.requests.length,
        rejection: () => fake.requests.find((request) => request.rejected)?.rejected?.message,
        close: () => fake.close(),
      };
    }
    case 'ollama': {
      const body = ollamaChunks(answer)
        .map((chunk) => `${JSON.stringify(chunk)}\n`)
        .join('');
      const fake = await startFakeOllama([{ type: 'raw', body, contentType: 'application/x-ndjson' }], {
        fallback: textReply('ok'),
      });
      const models = new Set(['llama3.2:latest']);
      const chats = () => fake.requests.filter((request) => request.path === '/api/chat');
      return {
        args: ['-m', 'ollama:llama3.2', '--provider-url', fake.url],
        env: {},
        requestCount: () => chats().length,
        rejection: () =>
          chats()
            .map((request) => validateChatBody(request.body, models))
            .map((validation) => (validation.ok ? undefined : validation.error))
            .find(Boolean),
        close: () => fake.close(),
      };
    }
    default: {
      const unexpected: never = vendor;
      throw new TypeError(`cli fuzz: unknown vendor ${String(unexpected)}`);
    }
  }
}

/**
 * Why the output is not what `-p` promises (every failure one `mcphost:` line, no stack traces, no
 * Node warnings, no control characters), or undefined.
 */
function outputProblem(stdout: string, stderr: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  for (const [stream, text] of [
    ['stdout', stdout],
    ['stderr', stderr],
  ] as const) {
    for (const line of text.split('\n')) {
      if (/^\s+at\s/.test(line)) return `${stream} has a stack trace line: ${JSON.stringify(line)}`;
      if (/Warning:/.test(line)) return `${stream} has a Node warning: ${JSON.stringify(line)}`;
      if (control.test(line)) return `${stream} has a control character: ${JSON.stringify(line)}`;
    }
  }
  return undefined;
}

/** Runs the CLI once against `vendor` serving `answer`; `home` holds the fixture config. */
export async function runCliFuzz(
  vendor: Vendor,
  generated: GeneratedAnswer,
  home: string,
  timeoutMs: number,
): Promise<CliFuzzOutcome> {
  const answer = withExposedNames(generated);
  const stream = streamKind(vendor, answer);
  const fake = await startVendorFake(vendor, answer);
  try {
    const running = startCli(['-p', 'go', ...fake.args], home, { env: fake.env, timeoutMs });
    running.child.stdin.end();
    const run = await running.done.catch(() => undefined);
    if (run === undefined) {
      return { exit: 'timeout', problem: 'no exit in time', requests: 0, stderr: '', stream };
    }
    const exit = run.code === null ? `signal ${String(run.signal)}` : String(run.code);
    const requests = fake.requestCount();
    const rejection = fake.rejection();
    const problem =
      (run.code === 1 ? `exit 1: ${run.stderr.trim().split('\n')[0] ?? ''}` : undefined) ??
      (run.code === null ? `killed by ${String(run.signal)}` : undefined) ??
      outputProblem(run.stdout, run.stderr) ??
      (rejection === undefined ? undefined : `the fake refused a request: ${rejection}`);
    return { exit, problem, requests, stderr: run.stderr, stream };
  } finally {
    await fake.close();
  }
}
