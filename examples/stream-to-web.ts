/**
 * Stream a run's events to a web client as Server-Sent Events.
 *
 *   npm run build && node --import tsx examples/stream-to-web.ts
 *   curl -N 'http://127.0.0.1:8787/ask?q=What+is+in+/tmp'
 *
 * Each HTTP request gets its own Runner (its own conversation); the client hanging up cancels the
 * run, which cancels the model stream and any tool call in flight.
 */
import { createServer } from 'node:http';
import { createRunner, type RunnerEvent } from 'mcphost';

const port = Number(process.env.PORT ?? 8787);

/** What the browser needs from each event (tool inputs and results can be large: keep them short). */
function toWire(event: RunnerEvent): object | undefined {
  switch (event.type) {
    case 'text-delta':
      return { type: 'text', text: event.text };
    case 'tool-call':
      return { type: 'tool', name: event.call.name, input: event.call.input };
    case 'tool-result':
      return { type: 'tool-done', name: event.record.call.name, failed: event.record.result.isError };
    case 'reasoning-delta':
      return { type: 'thinking', text: event.text };
    case 'retry':
      return { type: 'retry', inMs: event.delayMs };
    case 'compaction':
      return { type: 'compacted', messages: event.replacedMessages };
    case 'done':
      return { type: 'done', stopReason: event.result.stopReason, usage: event.result.usage };
    case 'agent-event':
      return { type: 'agent', agent: event.agent, event: toWire(event.event) };
    // `tool-call-delta`: a call's arguments as the model writes them (MCP Apps show them); the page
    // waits for `tool-call`.
    case 'tool-call-delta':
    case 'step-start':
    case 'step-finish':
    case 'tool-mode':
      return undefined;
  }
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  const question = url.searchParams.get('q');
  if (url.pathname !== '/ask' || question === null) {
    response.writeHead(404).end('try /ask?q=…\n');
    return;
  }
  const hangUp = new AbortController();
  response.on('close', () => hangUp.abort());
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  void (async () => {
    await using runner = await createRunner({ model: process.env.MODEL ?? 'ollama:mistral-small' });
    try {
      for await (const event of runner.stream(question, { signal: hangUp.signal })) {
        const wire = toWire(event);
        if (wire !== undefined) response.write(`data: ${JSON.stringify(wire)}\n\n`);
      }
    } catch (error) {
      response.write(`data: ${JSON.stringify({ type: 'error', message: String(error) })}\n\n`);
    } finally {
      response.end();
    }
  })();
});
server.listen(port, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${port}/ask?q=…`));
