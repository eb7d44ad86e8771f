/**
 * An OTLP/HTTP receiver on loopback for tests: takes `/v1/traces` and `/v1/metrics` in JSON or
 * protobuf (decoded with protobufjs and the part of the OTLP schema the tests read), and keeps the
 * spans and metric names it got, in one shape for both encodings.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import protobuf from 'protobufjs';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly events: readonly string[];
  readonly resource: Readonly<Record<string, unknown>>;
  /** The span contexts this span links to. */
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metricNames: Set<string>;
  /** Content types of the requests received, e.g. `application/x-protobuf`. */
  readonly contentTypes: Set<string>;
  close(): Promise<void>;
}

/** The OTLP messages the tests read (unknown fields are skipped by the decoder). */
const SCHEMA = {
  nested: {
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    Event: { fields: { name: { type: 'string', id: 2 } } },
    Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
    Metric: { fields: { name: { type: 'string', id: 1 } } },
    ScopeMetrics: { fields: { metrics: { rule: 'repeated', type: 'Metric', id: 2 } } },
    ResourceMetrics: { fields: { scopeMetrics: { rule: 'repeated', type: 'ScopeMetrics', id: 2 } } },
    ExportMetricsServiceRequest: {
      fields: { resourceMetrics: { rule: 'repeated', type: 'ResourceMetrics', id: 1 } },
    },
  },
};

const root = protobuf.Root.fromJSON(SCHEMA);
const TRACE_REQUEST = root.lookupType('ExportTraceServiceRequest');
const METRICS_REQUEST = root.lookupType('ExportMetricsServiceRequest');

interface WireValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: WireValue[] };
}
interface WireKeyValue {
  key: string;
  value?: WireValue;
}
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: WireKeyValue[];
  events?: Array<{ name: string }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}
interface WireTraces {
  resourceSpans?: Array<{
    resource?: { attributes?: WireKeyValue[] };
    scopeSpans?: Array<{ spans?: WireSpan[] }>;
  }>;
}
interface WireMetrics {
  resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }> }>;
}

function valueOf(value: WireValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: readonly WireKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((pair) => [pair.key, valueOf(pair.value)]));
}

/** protobufjs gives bytes as base64 with `bytes: String`; the JSON encoding uses hex. */
function hexOf(id: string | undefined, base64: boolean): string {
  if (id === undefined || id === '') return '';
  return base64 ? Buffer.from(id, 'base64').toString('hex') : id.toLowerCase();
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const contentTypes = new Set<string>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const type = (request.headers['content-type'] ?? '').split(';')[0] ?? '';
      contentTypes.add(type);
      const protobufBody = type === 'application/x-protobuf';
      const decode = (message: protobuf.Type): unknown =>
        protobufBody
          ? message.toObject(message.decode(body), { bytes: String, longs: String, defaults: false })
          : JSON.parse(body.toString('utf8'));
      if (request.url === '/v1/traces') {
        const traces = decode(TRACE_REQUEST) as WireTraces;
        for (const resourceSpans of traces.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: hexOf(span.traceId, protobufBody),
                spanId: hexOf(span.spanId, protobufBody),
                parentSpanId: hexOf(span.parentSpanId, protobufBody),
                name: span.name,
                kind: span.kind ?? 0,
                attributes: attributesOf(span.attributes),
                statusCode: span.status?.code ?? 0,
                events: (span.events ?? []).map((event) => event.name),
                resource,
                links: (span.links ?? []).map((link) => ({
                  traceId: hexOf(link.traceId, protobufBody),
                  spanId: hexOf(link.spanId, protobufBody),
                })),
              });
            }
          }
        }
      } else if (request.url === '/v1/metrics') {
        const received = decode(METRICS_REQUEST) as WireMetrics;
        for (const resource of received.resourceMetrics ?? [])
          for (const scope of resource.scopeMetrics ?? [])
            for (const metric of scope.metrics ?? []) metricNames.add(metric.name);
      }
      response.writeHead(200, {
        'content-type': protobufBody ? 'application/x-protobuf' : 'application/json',
      });
      response.end(protobufBody ? Buffer.alloc(0) : '{}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    metricNames,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
