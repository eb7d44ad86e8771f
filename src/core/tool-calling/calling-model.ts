/** One model call the way the run calls tools: by prompt, or natively with a turn to the prompt on refusal. */
import type { ModelReply } from '../model-call.js';
import type { Provider } from '../types.js';
import type { ToolCalling, ToolCallingChoice } from './calling-mode.js';
import { promptedToolCalling } from './prompted-provider.js';

export interface CallingOptions {
  readonly calling: ToolCalling | undefined;
  /** Told when the vendor refused the tools and the call goes on by prompt. */
  readonly switched: (next: ToolCalling) => void;
}

/**
 * Calls `call` with the provider to use, and once more by prompt when the vendor refuses a native
 * request's tools and the choice allows it (the rest of the run stays prompted). Resolves the reply
 * and the provider used, for a retry of the same call (after a compaction).
 */
export async function callAsChosen(options: {
  readonly provider: Provider;
  readonly choice: ToolCallingChoice;
  readonly calling: CallingOptions;
  readonly withTools: boolean;
  readonly call: (provider: Provider) => Promise<ModelReply>;
}): Promise<{ reply: ModelReply; provider: Provider }> {
  const { provider, calling } = options;
  const used = calling.calling?.kind === 'prompt' ? promptedToolCalling(provider) : provider;
  try {
    return { reply: await options.call(used), provider: used };
  } catch (error) {
    const next =
      options.withTools && calling.calling?.kind === 'native'
        ? options.choice.afterRefusal(provider, error)
        : undefined;
    if (next === undefined) throw error;
    calling.switched(next);
    const prompted = promptedToolCalling(provider);
    return { reply: await options.call(prompted), provider: prompted };
  }
}
