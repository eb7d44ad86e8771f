/**
 * The built-in to-do list as the editor's plan (`plan` session update): the whole list each time,
 * as the spec asks. The list has no priorities, so every entry is `medium`.
 */
import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import type { TodoItem } from '../builtin/todo-server.js';

export function planOf(items: readonly TodoItem[]): SessionUpdate {
  return {
    sessionUpdate: 'plan',
    entries: items.map((item): PlanEntry => ({
      content: item.content,
      priority: 'medium',
      status: item.status,
    })),
  };
}
