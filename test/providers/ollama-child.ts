/**
 * Run by ollama-stdout.test.ts in a child process: makes one chat call per scripted failure of the
 * fake server at argv[2] and reports each outcome on stderr as a JSON line, so that the parent can
 * check that nothing at all was written to stdout. argv[3] is how many calls to make.
 */
import { OllamaProvider } from '../../providers/ollama.js';

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
if (url === undefined) throw new Error('ollama-child: the fake server URL is the first argument');
const baseUrl = url;

async function callOnce(): Promise<void> {
  const provider = new OllamaProvider({ model: 'llama3.2', baseUrl, env: {} });
  for await (const _event of provider.chat({
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    settings: {},
  })) {
    // Drain the stream; the failure is what matters.
  }
}

for (let index = 0; index < count; index++) {
  try {
    await callOnce();
    process.stderr.write(`${JSON.stringify({ outcome: 'ok' })}\n`);
  } catch (error) {
    const details = error as Error & { status?: number };
    process.stderr.write(
      `${JSON.stringify({ outcome: details.name, status: details.status, message: details.message })}\n`,
    );
  }
}
