/**
 * What the pool offers the servers of a runner (createRunner): elicitation answered through the
 * questions, sampling on the runner's provider, the roots, server logs and list changes passed on.
 * The handlers load their modules when a server first asks, so a run without servers never loads
 * the MCP SDK.
 */
import type { ServerFeatures } from '../mcp/client-features.js';
import type { ElicitationPolicy } from '../mcp/elicitation.js';
import type { OfferingsChanges } from '../mcp/offerings-changes.js';
import type { ServerRoots } from '../mcp/server-roots.js';
import type { SamplingHost } from '../mcp/sampling.js';
import { describeLogData, type ServerLogBook } from '../mcp/server-logs.js';
import type { QuestionQueue, UserQuestions } from '../core/questions.js';
import type { SafetyOptions } from '../safety/options.js';
import type { CreateRunnerOptions } from './runner-options.js';
import type { HostNotices } from './host-event.js';
import { contentScreenFor } from './safety-settings.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * What the pool offers servers: elicitation answered through the questions, sampling on the
 * runner's provider, the roots, logs passed on.
 */
export function serverFeatures(parts: {
  readonly options: CreateRunnerOptions;
  readonly notices: HostNotices;
  readonly queue: QuestionQueue;
  readonly serverLogs: ServerLogBook;
  readonly elicitationPolicy: ElicitationPolicy | undefined;
  readonly safety: SafetyOptions;
  readonly roots: ServerRoots;
  /**
   * The runner and guard that sampling runs on and under. A getter, because they are built around
   * the pool this is given to (a genuine cycle): undefined until they exist, and a request that
   * comes before then is declined.
   */
  readonly samplingHost: () => SamplingHost | undefined;
  readonly changes: OfferingsChanges;
}): ServerFeatures {
  const { options, notices, queue, serverLogs, elicitationPolicy, safety, roots, samplingHost, changes } =
    parts;
  const questions: UserQuestions = options.questions ?? {};
  // Loaded when a server first asks, like the elicitation handler.
  let sampler: Promise<NonNullable<ServerFeatures['sample']>> | undefined;
  // The handler checks answers with the SDK's ajv validator: loaded when a server first asks, so
  // that a run without servers never loads the MCP SDK.
  let handler: Promise<NonNullable<ServerFeatures['elicit']>> | undefined;
  return {
    elicit: async (server, params, signal) => {
      handler ??= import('../mcp/elicitation.js').then(({ createElicitationHandler }) =>
        createElicitationHandler({
          questions,
          queue,
          policy: elicitationPolicy,
          ...definedProperties({ onOutcome: notices.elicitationOutcome }),
        }),
      );
      return (await handler)(server, params, signal);
    },
    sample: async (server, params, signal) => {
      sampler ??= import('../mcp/sampling.js').then(({ createSamplingHandler }) =>
        createSamplingHandler({
          host: samplingHost,
          questions,
          queue,
          ...definedProperties({ budget: safety.budgets?.sampling }),
          // The same screen as tool results, resources and prompts: its flags are reported alike.
          screen: contentScreenFor(safety, queue, questions, notices.contentFlagged),
          ...definedProperties({ onOutcome: notices.samplingOutcome }),
        }),
      );
      return (await sampler)(server, params, signal);
    },
    roots: (server) => roots.toRoots(server),
    skills: true,
    apps: options.apps !== undefined,
    onLogMessage: (server, message) => {
      serverLogs.add({ ...message, server, at: Date.now() });
      const logger = message.logger === undefined ? '' : ` ${message.logger}`;
      const data = describeLogData(message.data);
      notices.serverLog?.({ server, level: 'debug', message: `log ${message.level}${logger}: ${data}` });
      notices.serverLogMessage?.(server, message);
    },
    // A 2025-era server that changes a list without declaring `listChanged` lands here (a declared
    // one is heard through the pool's onListChanged), and so do updates of subscribed resources.
    onResourcesChanged: (server, uri) => {
      changes.announce(
        uri === undefined
          ? { type: 'list-changed', server, list: 'resources' }
          : { type: 'resource-updated', server, uri },
      );
    },
    onPromptsChanged: (server) => {
      changes.announce({ type: 'list-changed', server, list: 'prompts' });
    },
  };
}
