/**
 * The editor's side of {@link UserQuestions}: a tool call that would ask in the chat asks with
 * `session/request_permission`. An "always" answer, allow or reject, is kept for the session by
 * the guard (SessionGrants). A cancelled turn stops waiting at once (the request is cancelled).
 */
import type { AgentContext, PermissionOption, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalDecision, ApprovalRequest } from '../safety/approval.js';
import { toolCallOf, type LocateTool } from './tool-updates.js';

const OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow this tool', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject this tool', kind: 'reject_always' },
];

export interface EditorPermissionParts {
  readonly client: AgentContext;
  readonly sessionId: () => string;
  readonly locate: LocateTool;
}

export function editorApproval(
  parts: EditorPermissionParts,
): (request: ApprovalRequest) => Promise<ApprovalDecision> {
  return async (request) => {
    const toolCall = toolCallOf(request.call, parts.locate);
    // An MCP App's own call (its page asked, not the model): the editor's question says so.
    const appId = request.call.fromApp;
    const asker = appId === undefined ? '' : ` — asked by the MCP App ${appId}, not the model`;
    const response: RequestPermissionResponse = await parts.client.request(
      'session/request_permission',
      {
        sessionId: parts.sessionId(),
        toolCall: { ...toolCall, title: `${toolCall.title}${asker} — ${request.reason}` },
        options: [...OPTIONS],
      },
      request.signal === undefined ? {} : { cancellationSignal: request.signal, stopWaitingOnCancel: true },
    );
    return decisionOf(response);
  };
}

function decisionOf(response: RequestPermissionResponse): ApprovalDecision {
  const outcome = response.outcome;
  if (outcome.outcome === 'cancelled') return { kind: 'deny', reason: 'the editor cancelled the question' };
  switch (outcome.optionId) {
    case 'allow-once':
      return { kind: 'allow-once' };
    case 'allow-always':
      return { kind: 'allow-tool' };
    case 'reject-always':
      return { kind: 'deny', always: true };
    case 'reject-once':
      return { kind: 'deny' };
    default:
      return { kind: 'deny', reason: `the editor answered with an unknown option "${outcome.optionId}"` };
  }
}
