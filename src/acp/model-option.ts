/**
 * The model as a session config option (`configOptions` of session/new and session/load, changed
 * with `session/set_config_option`): a select of the models mcphost knows of, the session's own
 * first. Changing it changes the provider for the next prompt.
 */
import type { SessionConfigOption } from '@agentclientprotocol/sdk';

export const MODEL_OPTION_ID = 'model';

export function modelOption(current: string, known: readonly string[]): SessionConfigOption {
  return {
    id: MODEL_OPTION_ID,
    name: 'Model',
    description: 'The model that answers the next prompt (provider:model)',
    category: 'model',
    type: 'select',
    currentValue: current,
    options: [...new Set([current, ...known])].map((model) => ({ value: model, name: model })),
  };
}
