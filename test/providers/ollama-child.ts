/**
 * Run by ollama-stdout.test.ts in a child process: makes one chat call per scripted failure of the
 * fake server at argv[3] and reports each outcome on stderr as a JSON line, so that the parent can
 * check that nothing at all was written to stdout.
 *
 * argv[2] is `provider` (OllamaProvider) or `client` (the bare `ollama` client, the control case).
 * argv[4] is how many calls to make.
 */
import { Ollama } from 'ollama';
import { OllamaProvider } from '../../providers/ollama.js';

const [mode, url, countText] = process.argv.slice(2);
const count = Number(countText);

async function callOnce(): Promise<void> {
  if (mode === 'client') {
    const stream = await new Ollama({ host: url }).chat({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _part of stream) {
      // Drain the stream; the failure is what matters.
    }
    return;
  }
  const provider = new OllamaProvider({ model: 'llama3.2', baseUrl: url, env: {} });
  for await (const _event of provider.chat({
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    settings: {},
  })) {
    // As above.
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
