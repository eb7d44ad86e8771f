/**
 * Pure mappings between mcphost's conversation and node-llama-cpp's chat history.
 *
 * node-llama-cpp keeps a model turn that calls functions as ONE `model` item: text, then each
 * call with its result, then more text and calls until the answer. The Runner keeps the same turn
 * as assistant and tool messages in turn, so consecutive assistant and tool messages are folded
 * into one `model` item here. A history that ends with such an item (the last step called tools)
 * is then continued by `LlamaChat.generateResponse`, which is exactly the next step.
 */
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatModelResponse,
  LlamaChatResponse,
} from 'node-llama-cpp';
import type {
  ChatRequest,
  FinishReason,
  ImageBlock,
  TextBlock,
  ToolResultBlock,
  ToolSpec,
} from '../../src/core/types.js';
import { envelopedContent } from '../untrusted-marking.js';
import { cleanSchemaForLlama } from './schema.js';

/** Said in place of the text when a tool failed (the wrappers render results as plain text). */
export const LOCAL_TOOL_ERROR_PREFIX = 'Error: ';

/** What {@link toLlamaHistory} could not carry, for a one-time warning. */
export interface HistoryMappingNotes {
  /** Images were left out: the embedded models are text-only here. */
  readonly droppedImages: boolean;
}

/** The request's system prompt and messages as node-llama-cpp's history. */
export function toLlamaHistory(request: Pick<ChatRequest, 'system' | 'messages'>): {
  readonly history: ChatHistoryItem[];
  readonly notes: HistoryMappingNotes;
} {
  const history: ChatHistoryItem[] = [];
  let droppedImages = false;
  if (request.system !== undefined && request.system !== '') {
    history.push({ type: 'system', text: request.system });
  }
  // Results arrive one message after their calls: keep the calls waiting for them by id.
  const waiting = new Map<string, ChatModelFunctionCall>();
  for (const message of request.messages) {
    switch (message.role) {
      case 'user': {
        droppedImages ||= message.content.some((block) => block.type === 'image');
        history.push({ type: 'user', text: joinText(message.content) });
        break;
      }
      case 'assistant': {
        const item = currentModelItem(history);
        for (const block of message.content) {
          if (block.type === 'text') {
            if (block.text !== '') item.response.push(block.text);
            continue;
          }
          const call: ChatModelFunctionCall = {
            type: 'functionCall',
            name: block.name,
            params: block.input,
            // Replaced by the result when the tool message comes; a call never answered says so.
            result: 'Error: the call was not answered',
          };
          waiting.set(block.id, call);
          item.response.push(call);
        }
        break;
      }
      case 'tool': {
        for (const result of message.content) {
          droppedImages ||= result.content.some((block) => block.type === 'image');
          const call = waiting.get(result.toolCallId);
          if (call !== undefined) call.result = resultText(result);
          waiting.delete(result.toolCallId);
        }
        break;
      }
      default: {
        const unexpected: never = message;
        throw new TypeError(`unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return { history, notes: { droppedImages } };
}

/** The last item when it is a model turn still going on (after tool results), else a new one. */
function currentModelItem(history: ChatHistoryItem[]): ChatModelResponse {
  const last = history.at(-1);
  if (last?.type === 'model') return last;
  const item: ChatModelResponse = { type: 'model', response: [] };
  history.push(item);
  return item;
}

function resultText(result: ToolResultBlock): string {
  const text = joinText(envelopedContent(result));
  return result.isError ? `${LOCAL_TOOL_ERROR_PREFIX}${text}` : text;
}

/** Text blocks, one paragraph each; an image is named where it was (the model cannot see it). */
function joinText(blocks: ReadonlyArray<TextBlock | ImageBlock>): string {
  return blocks
    .map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType} left out]`))
    .join('\n\n');
}

/** The tools as node-llama-cpp functions, each with a schema its grammar can express. */
export function toLlamaFunctions(tools: readonly ToolSpec[]): ChatModelFunctions | undefined {
  if (tools.length === 0) return undefined;
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const tool of tools) {
    Object.defineProperty(functions, tool.name, {
      value: {
        ...(tool.description === '' ? {} : { description: tool.description }),
        params: cleanSchemaForLlama(tool.inputSchema),
      },
      enumerable: true,
    });
  }
  return functions;
}

/** Why node-llama-cpp stopped, in mcphost's closed set. `abort` is not a finish: it throws. */
export function toFinishReason(
  stopReason: LlamaChatResponse['metadata']['stopReason'],
  sawToolCalls: boolean,
): FinishReason {
  if (sawToolCalls) return 'tool-calls';
  switch (stopReason) {
    case 'functionCalls':
      return 'tool-calls';
    case 'maxTokens':
      return 'length';
    case 'eogToken':
    case 'stopGenerationTrigger':
    case 'customStopTrigger':
      return 'stop';
    case 'abort':
      return 'other';
    default: {
      const unexpected: never = stopReason;
      return unexpected;
    }
  }
}
