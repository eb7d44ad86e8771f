/** The lines and bodies of the fake Ollama's answers (ollama-server.ts), as Ollama writes them. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function textLine(model: string, content: string): Record<string, unknown> {
  return {
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content },
    done: false,
  };
}

export function finalLine(
  model: string,
  doneReason: string,
  promptEvalCount: number,
  evalCount: number,
): Record<string, unknown> {
  return {
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: doneReason,
    total_duration: 1_000_000,
    load_duration: 100_000,
    // Like Ollama, counts of zero are left out (a fully cached prompt has no prompt_eval_count).
    ...(promptEvalCount > 0 ? { prompt_eval_count: promptEvalCount, prompt_eval_duration: 200_000 } : {}),
    ...(evalCount > 0 ? { eval_count: evalCount, eval_duration: 700_000 } : {}),
  };
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

export async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
