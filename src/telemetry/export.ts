/**
 * The CLI's OpenTelemetry SDK: OTLP/HTTP exporters (protobuf or JSON) for traces and metrics,
 * registered as the global providers that createRunner's listener then uses. Imported only when
 * {@link exportPlan} found an endpoint: a run without one loads none of this.
 *
 * The resource holds the service (name, version), `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`, and the SDK's own attributes; no process or host detector, since the
 * command line holds the prompt of a `-p` run.
 */
import {
  context,
  metrics,
  propagation,
  trace,
  type Attributes,
  type TracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ExportPlan, SignalPlan } from './export-settings.js';

/** The longest the exit waits for the last spans and metrics to go out. */
export const EXPORT_AT_EXIT_MS = 1_000;

/** How often metrics go out during a long run (a chat, a worker); a `-p` run sends them at exit. */
const METRIC_INTERVAL_MS = 60_000;

export interface RunningExport {
  /** Sends what is left and stops, within {@link EXPORT_AT_EXIT_MS}. Never rejects. */
  shutdown(): Promise<void>;
}

export interface StartExportOptions {
  readonly plan: ExportPlan;
  readonly version: string;
  /** One line for the user; called at most once per process (an unreachable collector). */
  readonly onWarning: (message: string) => void;
  /** What is registered globally in place of the SDK's provider (a worker's: src/telemetry/job-trace.ts). */
  readonly wrapTracerProvider?: (provider: TracerProvider) => TracerProvider;
}

export async function startExport(options: StartExportOptions): Promise<RunningExport> {
  const { plan, version } = options;
  let warned = false;
  const warnOnce = (where: string, result: ExportResult): void => {
    if (result.code === ExportResultCode.SUCCESS || warned) return;
    warned = true;
    options.onWarning(
      `telemetry: could not export to ${where}: ${result.error?.message ?? 'failed'} (further failures are not reported)`,
    );
  };
  const ours: Attributes = { 'service.name': plan.serviceName ?? 'mcphost', 'service.version': version };
  const resource = defaultResource()
    .merge(resourceFromAttributes(ours))
    .merge(detectResources({ detectors: [envDetector] }));

  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const [spanExporter, metricExporter] = await Promise.all([
    plan.traces === undefined ? undefined : traceExporter(plan.traces),
    plan.metrics === undefined ? undefined : metricsExporter(plan.metrics),
  ]);
  let tracerProvider: BasicTracerProvider | undefined;
  if (spanExporter !== undefined) {
    reportFailures(spanExporter, 'the traces endpoint', warnOnce);
    tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(spanExporter)],
    });
    trace.setGlobalTracerProvider(options.wrapTracerProvider?.(tracerProvider) ?? tracerProvider);
  }
  let meterProvider: MeterProvider | undefined;
  if (metricExporter !== undefined) {
    reportFailures(metricExporter, 'the metrics endpoint', warnOnce);
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metricExporter,
          exportIntervalMillis: METRIC_INTERVAL_MS,
          exportTimeoutMillis: EXPORT_AT_EXIT_MS,
        }),
      ],
    });
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    shutdown: async () => {
      const done = Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]).then(
        () => undefined,
        () => undefined,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, EXPORT_AT_EXIT_MS);
        timer.unref();
      });
      const finished = await Promise.race([done.then(() => true), late.then(() => false)]);
      clearTimeout(timer);
      // The exporter retries an unreachable collector past our budget: say so, once, and go.
      if (!finished && !warned) {
        warned = true;
        options.onWarning(
          `telemetry: the export did not finish within ${EXPORT_AT_EXIT_MS / 1000} s (is the collector reachable?); what was left is dropped`,
        );
      }
    },
  };
}

async function traceExporter(plan: SignalPlan): Promise<SpanExporter> {
  const config = exporterConfig(plan);
  if (plan.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

async function metricsExporter(plan: SignalPlan): Promise<PushMetricExporter> {
  const config = exporterConfig(plan);
  if (plan.protocol === 'http/json') {
    const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
    return new OTLPMetricExporter(config);
  }
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-proto');
  return new OTLPMetricExporter(config);
}

function exporterConfig(plan: SignalPlan): {
  url?: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
} {
  return {
    // An export (with the exporter's retries) gives up within the exit's budget, so that an
    // unreachable collector holds no request open past it, unless OTEL_EXPORTER_OTLP_TIMEOUT says.
    ...(plan.timeoutFromEnv ? {} : { timeoutMillis: EXPORT_AT_EXIT_MS }),
    ...(plan.url === undefined ? {} : { url: plan.url }),
    ...(plan.headers === undefined ? {} : { headers: { ...plan.headers } }),
  };
}

/** Passes every export's outcome by `warnOnce` (the SDK reports failures only to its diag logger). */
function reportFailures(
  exporter: SpanExporter | PushMetricExporter,
  where: string,
  warnOnce: (where: string, result: ExportResult) => void,
): void {
  const send = exporter.export.bind(exporter) as (
    items: unknown,
    done: (result: ExportResult) => void,
  ) => void;
  (exporter as { export: typeof send }).export = (items, done) => {
    send(items, (result) => {
      warnOnce(where, result);
      done(result);
    });
  };
}
