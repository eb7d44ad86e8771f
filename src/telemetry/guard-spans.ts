/**
 * Child spans of a tool call's `execute_tool` span for the guard's own work (guard/activity.ts):
 * `approval` (the wait for a person's answer), `hook PreToolUse` / `hook PostToolUse` (the hook
 * commands, which get this span's `TRACEPARENT`), and `screen` (the untrusted-content screen).
 * The guard runs each call inside its `execute_tool` span's context, the parent of these.
 * Nothing of the call's content is recorded: the reason an approval was asked for is the rule's
 * or the hook's text, kept out for the same reason (a hook may quote the call's arguments).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import type { GuardActivity, GuardActivityObserver } from '../safety/guard/activity.js';
import * as names from './semconv.js';

export function guardSpans(tracer: Tracer): GuardActivityObserver {
  return {
    during: async (activity, call, work, outcomeOf) => {
      const parent = context.active();
      const span = tracer.startSpan(
        spanName(activity),
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [names.ATTR_GEN_AI_TOOL_NAME]: call.name,
            [names.ATTR_GEN_AI_TOOL_CALL_ID]: call.id,
            ...activityAttributes(activity),
          },
        },
        parent,
      );
      try {
        const value = await context.with(trace.setSpan(parent, span), work);
        span.setAttribute(names.ATTR_MCPHOST_OUTCOME, outcomeOf(value));
        span.end();
        return value;
      } catch (error) {
        span.setAttribute(names.ATTR_ERROR_TYPE, error instanceof Error ? error.name : '_OTHER');
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        throw error;
      }
    },
  };
}

function spanName(activity: GuardActivity): string {
  switch (activity.kind) {
    case 'approval':
      return 'approval';
    case 'hook':
      return `hook ${activity.event}`;
    case 'screen':
      return 'screen';
    default: {
      const unexpected: never = activity;
      return String(unexpected);
    }
  }
}

function activityAttributes(activity: GuardActivity): Attributes {
  switch (activity.kind) {
    case 'hook':
      return { [names.ATTR_MCPHOST_HOOK_EVENT]: activity.event };
    case 'approval':
    case 'screen':
      return {};
    default: {
      const unexpected: never = activity;
      return unexpected;
    }
  }
}
