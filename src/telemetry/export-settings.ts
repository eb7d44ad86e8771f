/**
 * Whether and how the CLI exports (docs/telemetry.md), from the standard OpenTelemetry variables
 * and the config's `telemetry`. Pure: deciding loads no OpenTelemetry module.
 */

/** The config's `telemetry` (config/schema.ts), as far as export goes. */
export interface TelemetrySettings {
  readonly endpoint?: string;
  readonly protocol?: 'http/protobuf' | 'http/json';
  readonly headers?: Readonly<Record<string, string>>;
  readonly serviceName?: string;
  readonly captureContent?: boolean;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What {@link exportPlan} decided for one signal. */
export interface SignalPlan {
  readonly protocol: OtlpProtocol;
  /** Set only when the config gives the endpoint: an endpoint from the environment is the exporter's to read. */
  readonly url?: string;
  /** The config's headers, when the environment sets none for the signal. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `OTEL_EXPORTER_OTLP_TIMEOUT` (or the signal's) is set: the exporter reads it. */
  readonly timeoutFromEnv: boolean;
}

export interface ExportPlan {
  readonly traces: SignalPlan | undefined;
  readonly metrics: SignalPlan | undefined;
  readonly serviceName: string | undefined;
  /** A setting that could not be honoured (an unknown protocol), said in one line. */
  readonly warning?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const SIGNALS = { traces: 'TRACES', metrics: 'METRICS' } as const;

/** `undefined`: no export (no endpoint anywhere, or `OTEL_SDK_DISABLED=true`). */
export function exportPlan(env: Env, settings: TelemetrySettings | undefined): ExportPlan | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  let warning: string | undefined;
  const plan = (signal: keyof typeof SIGNALS): SignalPlan | undefined => {
    const name = SIGNALS[signal];
    // `OTEL_TRACES_EXPORTER=none` (or _METRICS_) turns one signal off, as the spec says.
    if (env[`OTEL_${name}_EXPORTER`]?.trim().toLowerCase() === 'none') return undefined;
    const fromEnv =
      present(env[`OTEL_EXPORTER_OTLP_${name}_ENDPOINT`]) || present(env.OTEL_EXPORTER_OTLP_ENDPOINT);
    if (!fromEnv && settings?.endpoint === undefined) return undefined;
    const asked =
      env[`OTEL_EXPORTER_OTLP_${name}_PROTOCOL`]?.trim() ??
      env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() ??
      settings?.protocol ??
      'http/protobuf';
    let protocol: OtlpProtocol;
    if (asked === 'http/protobuf' || asked === 'http/json') protocol = asked;
    else {
      warning ??= `telemetry: OTLP protocol "${asked}" is not supported (http/protobuf and http/json are); using http/protobuf`;
      protocol = 'http/protobuf';
    }
    const envHeaders =
      present(env[`OTEL_EXPORTER_OTLP_${name}_HEADERS`]) || present(env.OTEL_EXPORTER_OTLP_HEADERS);
    return {
      protocol,
      timeoutFromEnv:
        present(env[`OTEL_EXPORTER_OTLP_${name}_TIMEOUT`]) || present(env.OTEL_EXPORTER_OTLP_TIMEOUT),
      ...(fromEnv || settings?.endpoint === undefined
        ? {}
        : { url: `${settings.endpoint.replace(/\/+$/, '')}/v1/${signal}` }),
      ...(envHeaders || settings?.headers === undefined ? {} : { headers: settings.headers }),
    };
  };
  const traces = plan('traces');
  const metrics = plan('metrics');
  if (traces === undefined && metrics === undefined) return undefined;
  return {
    traces,
    metrics,
    serviceName: settings?.serviceName,
    ...(warning === undefined ? {} : { warning }),
  };
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
