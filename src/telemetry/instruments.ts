/** The metrics this host records (GenAI and MCP client conventions, plus a tool-call count). */
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCPHOST_TOOL_CALLS,
} from './semconv.js';

/** Bucket boundaries the conventions advise for durations (seconds) and token counts. */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

export interface Instruments {
  readonly tokenUsage: Histogram;
  readonly operationDuration: Histogram;
  readonly mcpDuration: Histogram;
  readonly toolCalls: Counter;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    tokenUsage: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    operationDuration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    mcpDuration: meter.createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
      description: 'The duration of the MCP request or notification as observed on the sender',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    toolCalls: meter.createCounter(METRIC_MCPHOST_TOOL_CALLS, {
      description: 'Tool calls, by MCP server and outcome',
      unit: '{call}',
    }),
  };
}
