/* global process, URL, Buffer */
// The floor under a one-shot's network exchange: Node starts, loads the `ollama` client, and makes
// through it the one-shot's two requests to the fake Ollama at argv[2] (`/api/show`, then a
// streamed `/api/chat` with `num_ctx`), over node:http as mcphost's transport does
// (providers/ollama-http.ts: a `fetch` answer with `ok`, `status`, `headers.get`, a body reader
// and `json()`), with the client's `Headers` read answered as the executable's bundle answers it
// (src/cli/ollama-client-shims.ts), so that neither loads undici. No yargs, no zod, no files.
import { request } from 'node:http';
import { createRequire } from 'node:module';

Object.defineProperty(globalThis, 'Headers', {
  value: { [Symbol.hasInstance]: () => false },
  configurable: true,
});
// Required, as the executable's CommonJS bundle has it: an `import()` of the package would add the
// ES module loader's resolution (and cjs-module-lexer for its polyfill), which the executable never pays.
const { Ollama } = createRequire(import.meta.url)('ollama/browser');

/** Answers not read to their end: the client stops at the last line, mcphost's transport drains it. */
const open = new Set();

/** `fetch` over node:http: the answer's status and headers, its body as a web stream. */
function nodeFetch(url, init) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const body = init.body ?? undefined;
    const sent = request(target, {
      method: init.method ?? 'GET',
      headers: {
        ...init.headers,
        ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
      },
    });
    sent.on('error', reject);
    sent.once('response', (answer) => {
      open.add(answer);
      answer.once('end', () => open.delete(answer));
      let stream;
      const text = async () => {
        let all = '';
        answer.setEncoding('utf8');
        for await (const chunk of answer) all += chunk;
        return all;
      };
      resolve({
        ok: answer.statusCode >= 200 && answer.statusCode < 300,
        status: answer.statusCode,
        statusText: answer.statusMessage,
        headers: { get: (name) => answer.headers[name.toLowerCase()] ?? null },
        // A reader over the chunks, as mcphost's transport gives the client (no web streams).
        get body() {
          const chunks = answer[Symbol.asyncIterator]();
          stream ??= {
            getReader: () => ({
              read: async () => {
                const next = await chunks.next();
                return next.done ? { done: true } : { done: false, value: new Uint8Array(next.value) };
              },
              releaseLock: () => undefined,
            }),
          };
          return stream;
        },
        json: async () => JSON.parse(await text()),
        text,
      });
    });
    sent.end(body);
  });
}

const client = new Ollama({ host: process.argv[2], fetch: nodeFetch });
const show = await client.show({ model: 'llama3.2' });
const trained = Object.entries(show.model_info).find(([key]) => key.endsWith('.context_length'))?.[1];
let answer = '';
const stream = await client.chat({
  model: 'llama3.2',
  messages: [{ role: 'user', content: 'hi' }],
  options: { num_ctx: Math.min(32_768, trained) },
  stream: true,
});
for await (const part of stream) answer += part.message.content;
for (const rest of open) rest.resume();
process.stdout.write(`${answer.length}\n`);
