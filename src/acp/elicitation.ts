/**
 * A server's MCP elicitation in an editor session: asked of the editor with ACP's
 * `elicitation/create`, in the modes the client says it shows (`clientCapabilities.elicitation`),
 * tied to the session and to the tool call running on that server. A client that shows neither
 * gets no question: the host's elicitation policy answers (declines by default), as where nobody
 * can be asked. A cancelled turn stops waiting at once.
 */
import type {
  AgentContext,
  ClientCapabilities,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationSchema,
} from '@agentclientprotocol/sdk';
import type { ElicitationAnswer, ElicitationRequest, JsonObject } from '../core/questions.js';

export interface EditorElicitationParts {
  readonly client: AgentContext;
  readonly sessionId: () => string;
  readonly capabilities: ClientCapabilities;
  /** The tool call running on `server`, if one is. */
  readonly runningCallOf: (server: string) => string | undefined;
  /** The running turn's signal: a cancelled turn withdraws the question at once. */
  readonly turnSignal: () => AbortSignal | undefined;
}

/** The `elicit` question for the session, or undefined when the client shows no elicitation. */
export function editorElicitation(
  parts: EditorElicitationParts,
): ((request: ElicitationRequest) => Promise<ElicitationAnswer>) | undefined {
  const modes = parts.capabilities.elicitation;
  const form = modes?.form !== undefined && modes.form !== null;
  const url = modes?.url !== undefined && modes.url !== null;
  if (!form && !url) return undefined;
  return async (request) => {
    if ((request.mode === 'form' && !form) || (request.mode === 'url' && !url)) return { action: 'decline' };
    const toolCallId = parts.runningCallOf(request.server);
    const scope = { sessionId: parts.sessionId(), ...(toolCallId === undefined ? {} : { toolCallId }) };
    // Whose question it is: the editor shows the message, and a server may not pass for mcphost.
    const message = `${request.server}: ${request.message}`;
    const params: CreateElicitationRequest =
      request.mode === 'form'
        ? {
            mode: 'form',
            message,
            // The host's form reader checked it is a flat form of the kinds both protocols share.
            requestedSchema: request.requestedSchema as unknown as ElicitationSchema,
            ...scope,
          }
        : { mode: 'url', message, url: request.url, elicitationId: request.elicitationId, ...scope };
    const turn = parts.turnSignal();
    const response: CreateElicitationResponse = await parts.client.request('elicitation/create', params, {
      cancellationSignal: turn === undefined ? request.signal : AbortSignal.any([request.signal, turn]),
      stopWaitingOnCancel: true,
    });
    return answerOf(response);
  };
}

function answerOf(response: CreateElicitationResponse): ElicitationAnswer {
  switch (response.action) {
    case 'accept':
      return {
        action: 'accept',
        ...(response.content === undefined || response.content === null
          ? {}
          : { content: response.content as JsonObject }),
      };
    case 'cancel':
      return { action: 'cancel' };
    default:
      // decline, and an action of a later version this agent does not know.
      return { action: 'decline' };
  }
}
