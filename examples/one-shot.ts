/**
 * Ask one question with the tools of your configured MCP servers (~/.mcp.json), print the answer.
 *
 *   npm run build && node --import tsx examples/one-shot.ts "What files are in /tmp?"
 *
 * MODEL picks the model (default ollama:mistral-small); OLLAMA_HOST etc. work as for the CLI.
 */
import { createRunner, MaxStepsError, ProviderError } from 'mcphost';

const question = process.argv[2] ?? 'Which tools can you use? Answer in one sentence.';

await using runner = await createRunner({ model: process.env.MODEL ?? 'ollama:mistral-small' });
for (const server of runner.servers) {
  if (server.state !== 'ready')
    console.error(`server ${server.name} is ${server.state}: ${server.lastError ?? ''}`);
}
try {
  const result = await runner.run(question, { signal: AbortSignal.timeout(120_000) });
  console.log(result.text);
  console.error(
    `(${result.steps} steps, ${result.toolCalls.length} tool calls, ${result.usage.outputTokens} tokens out)`,
  );
} catch (error) {
  if (error instanceof ProviderError) console.error(`the model failed: ${error.message}`);
  else if (error instanceof MaxStepsError) console.error(`no answer after ${error.steps} steps`);
  else throw error;
  process.exitCode = 1;
}
