/**
 * Whether the program registered an OpenTelemetry provider, asked without loading
 * `@opentelemetry/api`: the API keeps its global registrations on this symbol of `globalThis`
 * (one per API major). A run with telemetry off so loads no OpenTelemetry module at all.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** True once a tracer or meter provider was registered with the global API (`trace.setGlobalTracerProvider`…). */
export function telemetryRegistered(): boolean {
  const registered: unknown = (globalThis as Record<symbol, unknown>)[API_GLOBAL];
  if (typeof registered !== 'object' || registered === null) return false;
  return 'trace' in registered || 'metrics' in registered;
}
