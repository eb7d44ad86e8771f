/**
 * OpenTelemetry export for a CLI run: on when an OTLP endpoint is given (the standard variables or
 * the config's `telemetry`), off with `OTEL_SDK_DISABLED=true`. The SDK and exporters are imported
 * only then (docs/telemetry.md).
 */
import type { TelemetryConfig } from '../../config/index.js';
import { exportPlan } from '../telemetry/export-settings.js';
import type { RunningExport, StartExportOptions } from '../telemetry/export.js';

/** What a command adds to the export, made only when there is one (nothing loaded otherwise). */
export interface ExportAdditions {
  /** Made before the SDK's provider is registered: what is registered in its place. */
  readonly wrapTracerProvider?: () => Promise<NonNullable<StartExportOptions['wrapTracerProvider']>>;
}
import { packageVersion } from '../util/version.js';
import { assembleRunner } from '../setup/create-runner.js';

/** Starts exporting when asked; `undefined` when not (nothing loaded). */
export async function startTelemetryExport(
  env: Readonly<Record<string, string | undefined>>,
  settings: TelemetryConfig | undefined,
  warn: (message: string) => void,
  more: ExportAdditions = {},
): Promise<RunningExport | undefined> {
  const plan = exportPlan(env, settings);
  if (plan === undefined) return undefined;
  if (plan.warning !== undefined) warn(plan.warning);
  const { startExport } = await import('../telemetry/export.js');
  const wrapTracerProvider = await more.wrapTracerProvider?.();
  return startExport({
    plan,
    version: packageVersion(),
    onWarning: warn,
    ...(wrapTracerProvider === undefined ? {} : { wrapTracerProvider }),
  });
}

/**
 * `assembleRunner`, shutting the export down when it throws: a runner that cannot be assembled (a
 * missing API key, no server started) still sends the spans of what did happen (the servers'
 * starts) before its error is reported.
 */
export function assembleExporting(exporting: RunningExport | undefined): typeof assembleRunner {
  return (options) =>
    assembleRunner(options).catch(async (error: unknown) => {
      await exporting?.shutdown();
      throw error;
    });
}
