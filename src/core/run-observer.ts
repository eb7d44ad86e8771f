/**
 * A listener on a Runner's runs that may also say in which context the run and each tool call
 * execute (telemetry: the run's span and each call's span). The Runner knows nothing of
 * OpenTelemetry; src/telemetry implements this with `@opentelemetry/api`.
 */
import type { RunResult, RunnerEvent } from './events.js';
import type { GenerationSettings, Provider, ToolCallBlock } from './types.js';

/** What an observer is told when a run starts. */
export interface ObservedRun {
  /** The model of this run (read again at each step: `/model` may replace it between runs). */
  readonly provider: () => Provider;
  readonly settings: () => GenerationSettings;
}

/** One run, as an observer follows it. */
export interface RunObservation {
  /** Runs the whole run inside the run's context (so that what it starts nests under it). */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Every event of the run, before the caller's `onEvent` gets it. */
  event(event: RunnerEvent): void;
  /** Runs the tool host's call of `call` inside the call's context. */
  withinToolCall<T>(call: ToolCallBlock, work: () => Promise<T>): Promise<T>;
  /** The run ended (also for a prompt refused before it joined the history). */
  end(
    outcome:
      | { readonly kind: 'completed'; readonly result: RunResult }
      | { readonly kind: 'failed'; readonly error: unknown },
  ): void;
}

/** Observes the runs of a Runner (`RunnerOptions.observer`). */
export interface RunObserver {
  startRun(run: ObservedRun): RunObservation;
}

/** Runs `work` inside the observation: events pass by it first, and it hears how the run ended. */
export function observeRun<Options extends { readonly onEvent?: (event: RunnerEvent) => void }>(
  observer: RunObserver | undefined,
  run: ObservedRun,
  options: Options,
  work: (observed: Options, observation?: RunObservation) => Promise<RunResult>,
): Promise<RunResult> {
  if (observer === undefined) return work(options);
  const observation = observer.startRun(run);
  const onEvent = options.onEvent;
  const observed: Options = {
    ...options,
    onEvent: (event) => {
      observation.event(event);
      onEvent?.(event);
    },
  };
  return observation.within(async () => {
    try {
      const result = await work(observed, observation);
      observation.end({ kind: 'completed', result });
      return result;
    } catch (error) {
      observation.end({ kind: 'failed', error });
      throw error;
    }
  });
}
