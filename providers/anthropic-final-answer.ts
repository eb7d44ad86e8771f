/**
 * Structured output for Anthropic: a final-answer tool.
 *
 * The Messages API's way to get JSON that fits a schema is a tool whose `input_schema` is the
 * schema: the model "calls" it with the answer as the input. It is offered beside the run's tools
 * with `tool_choice: { type: "any" }`, so the model must call a tool at every step: one of the
 * run's tools while it works, the final-answer tool when it is done. Forcing the final-answer tool
 * itself (`{ type: "tool" }`) would take the other tools away, so that is done only on a step
 * without other tools (no tools configured, or the Runner's answer step after a refused answer).
 * mcphost sends no extended thinking, which the API refuses beside a forcing `tool_choice`.
 *
 * On the way back, the final-answer call becomes the answer's text (its input as JSON), so the
 * Runner checks and keeps it like any other answer, and the history holds text, not a call
 * without a result.
 */
import type { Anthropic } from '@anthropic-ai/sdk';
import type { ChatRequest, ProviderEvent, ResponseFormat } from '../src/core/types.js';

/** The final-answer tool's name (another is chosen if a tool of the run already has it). */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** The tool and the tool choice to add to a request, or undefined for free text. */
export interface FinalAnswerTool {
  readonly tool: Anthropic.Tool;
  readonly toolChoice: Anthropic.ToolChoice;
}

export function finalAnswerTool(request: ChatRequest): FinalAnswerTool | undefined {
  const format: ResponseFormat | undefined = request.responseFormat;
  if (format === undefined) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json-schema': {
      const taken = new Set(request.tools.map((tool) => tool.name));
      let name = FINAL_ANSWER_TOOL;
      for (let suffix = 2; taken.has(name); suffix++) name = `${FINAL_ANSWER_TOOL}_${suffix}`;
      const tool: Anthropic.Tool = {
        name,
        description:
          'Give your final answer by calling this tool, with the answer as its input. Call it once, ' +
          'when you are done with the other tools.',
        // The Runner sends an object root (it wraps any other), as `input_schema` requires.
        input_schema: { ...format.schema, type: 'object' },
      };
      const toolChoice: Anthropic.ToolChoice =
        request.tools.length === 0 ? { type: 'tool', name } : { type: 'any' };
      return { tool, toolChoice };
    }
    default: {
      const unexpected: never = format;
      throw new TypeError(`unknown response format ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * Passes a stream on with the final-answer call turned into text. A step that called only the
 * final-answer tool finishes with `stop`, as an answer does.
 */
export async function* finalAnswerAsText(
  events: AsyncIterable<ProviderEvent>,
  toolName: string,
): AsyncGenerator<ProviderEvent> {
  let otherCalls = 0;
  for await (const event of events) {
    if (event.type === 'tool-call' && event.call.name === toolName) {
      yield { type: 'text-delta', text: JSON.stringify(event.call.input) };
    } else if (event.type === 'finish' && event.reason === 'tool-calls' && otherCalls === 0) {
      yield { ...event, reason: 'stop' };
    } else {
      if (event.type === 'tool-call') otherCalls += 1;
      yield event;
    }
  }
}
