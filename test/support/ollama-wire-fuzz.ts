/**
 * An Ollama answer served over a real loopback socket and read by the real provider (the `ollama`
 * client over our `node:http` exchange, providers/ollama-http.ts): the fuzz's in-process Ollama
 * runs go through the wire, where a chunk after the `done` line once crashed the process with an
 * uncaught socket error that parsing the chunks in memory could never show.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OllamaProvider } from '../../providers/ollama.js';
import type { ProviderEvent } from '../../src/core/types.js';
import { readJsonBody } from './loopback.js';

interface Wire {
  readonly url: string;
  /** The body each run's model is answered with, by model name. */
  readonly bodies: Map<string, string>;
}

let wire: Promise<Wire> | undefined;
let runs = 0;

function sharedWire(): Promise<Wire> {
  wire ??= (async () => {
    const bodies = new Map<string, string>();
    const server = createServer((request, response) => {
      void (async () => {
        const body = (await readJsonBody(request)) as { model?: string } | undefined;
        const model = body?.model ?? '';
        const answer = bodies.get(model);
        bodies.delete(model);
        if (answer === undefined) {
          response.writeHead(404, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: `model "${model}" not found, try pulling it first` }));
          return;
        }
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        response.end(answer);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // One server for the whole fuzz (or test file): it must not keep the process alive at the end.
    server.unref();
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, bodies };
  })();
  return wire;
}

/** The provider events of `chunks` served as Ollama's NDJSON answer, or the error the provider threw. */
export async function ollamaOverWire(chunks: readonly unknown[]): Promise<ProviderEvent[] | Error> {
  const { url, bodies } = await sharedWire();
  const model = `fuzz-${++runs}`;
  bodies.set(model, chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join(''));
  // contextWindow given: no `/api/show` before the chat.
  const provider = new OllamaProvider({ model, baseUrl: url, env: {}, contextWindow: 4096 });
  const events: ProviderEvent[] = [];
  try {
    for await (const event of provider.chat({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      tools: [],
      settings: {},
    })) {
      events.push(event);
    }
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    bodies.delete(model);
  }
  return events;
}
