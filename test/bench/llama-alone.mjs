/* global process */
// The floor of the embedded model's one-shot (test/bench/local-model.ts): node-llama-cpp alone
// loading the same file with the same settings as mcphost (CPU binary chosen by `gpu: 'auto'`,
// one context capped like mcphost's, the given threads), answering one prompt, and exiting.
// Usage: node llama-alone.mjs MODEL THREADS MAX_TOKENS
import { getLlama, LlamaChat, LlamaLogLevel } from 'node-llama-cpp';

const [modelPath, threadsText, maxTokensText] = process.argv.slice(2);
const threads = Number(threadsText);
const llama = await getLlama({
  gpu: 'auto',
  build: 'never',
  maxThreads: threads,
  progressLogs: false,
  logLevel: LlamaLogLevel.error,
  logger: () => undefined,
});
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({
  contextSize: { max: Math.min(8192, model.trainContextSize) },
  threads,
  sequences: 1,
});
const chat = new LlamaChat({ contextSequence: context.getSequence() });
const result = await chat.generateResponse([{ type: 'user', text: 'hi' }], {
  maxTokens: Number(maxTokensText),
});
process.stdout.write(result.response);
await llama.dispose();
