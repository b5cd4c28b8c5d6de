import {
  type CloudWatchClient,
  type GetMetricDataCommandInput,
  type MetricDataQuery,
  type StandardUnit,
} from '@aws-sdk/client-cloudwatch';
import type {
  EndpointMetrics,
  EndpointMetricsQuery,
  EndpointMetricsReader,
  MetricSummary,
} from '../../core/ports/index.js';
import { fetchMetricData } from './cloudwatch-metric-data.js';

/** The `EndpointMetrics` fields this adapter fills, one per CloudWatch metric. */
type SummaryField = Exclude<keyof EndpointMetrics, 'source'>;

interface EndpointMetricSpec {
  readonly field: SummaryField;
  readonly namespace: string;
  readonly metricName: string;
  /** The unit SageMaker publishes the metric in; asked for explicitly, so the conversion below holds. */
  readonly unit: StandardUnit;
  /** From CloudWatch's unit to the field's unit. */
  readonly convert: (value: number) => number;
}

const microsecondsToMilliseconds = (value: number): number => value / 1000;
const unchanged = (value: number): number => value;

/**
 * Metric names, namespaces and units as "Monitor Amazon SageMaker with Amazon CloudWatch" (SageMaker
 * developer guide) lists them: invocation metrics (`AWS/SageMaker`) in microseconds; endpoint
 * instance metrics (`/aws/sagemaker/Endpoints`) in percent, CPU and GPU ones multiplied by the number
 * of cores or GPUs. Both are dimensioned by `EndpointName` and `VariantName`.
 */
export const ENDPOINT_METRIC_SPECS: readonly EndpointMetricSpec[] = [
  {
    field: 'modelLatencyMs',
    namespace: 'AWS/SageMaker',
    metricName: 'ModelLatency',
    unit: 'Microseconds',
    convert: microsecondsToMilliseconds,
  },
  {
    field: 'overheadLatencyMs',
    namespace: 'AWS/SageMaker',
    metricName: 'OverheadLatency',
    unit: 'Microseconds',
    convert: microsecondsToMilliseconds,
  },
  {
    field: 'cpuUtilizationPercent',
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'CPUUtilization',
    unit: 'Percent',
    convert: unchanged,
  },
  {
    field: 'memoryUtilizationPercent',
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'MemoryUtilization',
    unit: 'Percent',
    convert: unchanged,
  },
  {
    field: 'gpuUtilizationPercent',
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'GPUUtilization',
    unit: 'Percent',
    convert: unchanged,
  },
  {
    field: 'gpuMemoryUtilizationPercent',
    namespace: '/aws/sagemaker/Endpoints',
    metricName: 'GPUMemoryUtilization',
    unit: 'Percent',
    convert: unchanged,
  },
];

const STATISTICS = { average: 'Average', maximum: 'Maximum' } as const;
type SummaryStatistic = keyof typeof STATISTICS;

/**
 * A query's `Id`: "The valid characters are letters, numbers, and underscore. The first character
 * must be a lowercase letter" (CloudWatch API reference, MetricDataQuery). Field names start with one.
 */
export function queryId(field: SummaryField, statistic: SummaryStatistic): string {
  return `${field}_${statistic}`;
}

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

/**
 * The finest period CloudWatch still holds for a window starting at `startEpochMs`: 1-minute data
 * points are kept 15 days, 5-minute ones 63 days, 1-hour ones 455 days, and "if the StartTime
 * parameter specifies a time stamp that is greater than 3 hours ago, you must specify the period as
 * follows or no data points in that time range is returned" (CloudWatch API reference, MetricStat
 * Period). Whole minutes suit both standard and high-resolution metrics (SageMaker can publish
 * endpoint metrics every 10 or 30 s), since any multiple of 60 is a valid period for either.
 */
export function retainedResolutionSeconds(startEpochMs: number, nowEpochMs: number): number {
  const ageMs = nowEpochMs - startEpochMs;
  if (ageMs < 15 * DAY_MS) return 60;
  if (ageMs < 63 * DAY_MS) return 300;
  return 3600;
}

export interface MetricsWindow {
  readonly startTime: Date;
  readonly endTime: Date;
  /** The whole window as one period, so each statistic comes back as one exact data point. */
  readonly periodSeconds: number;
}

/**
 * The load test's window widened to whole periods of the retained resolution (start rounded down,
 * end rounded up), asked for as a single period: CloudWatch then computes Average and Maximum over
 * every sample in it (each request for the latencies, each instance-minute for utilization), which
 * no combination of per-minute averages would reproduce. The price of whole minutes: utilization
 * averages include the idle part of the first and last minute.
 */
export function metricsWindow(query: EndpointMetricsQuery, nowEpochMs: number): MetricsWindow {
  const { startEpochMs, endEpochMs } = query;
  if (!Number.isFinite(startEpochMs) || !Number.isFinite(endEpochMs) || endEpochMs < startEpochMs) {
    throw new TypeError(
      `Endpoint metrics window for ${query.endpointName}: got startEpochMs ${startEpochMs} and endEpochMs ` +
        `${endEpochMs}, expected finite epoch milliseconds with endEpochMs at or after startEpochMs`,
    );
  }
  const resolutionMs = retainedResolutionSeconds(startEpochMs, nowEpochMs) * SECOND_MS;
  const start = Math.floor(startEpochMs / resolutionMs) * resolutionMs;
  const end = Math.max(Math.ceil(endEpochMs / resolutionMs) * resolutionMs, start + resolutionMs);
  return { startTime: new Date(start), endTime: new Date(end), periodSeconds: (end - start) / SECOND_MS };
}

/** One GetMetricData request for every metric and statistic of the endpoint variant (12 queries of the 500 allowed). */
export function toGetMetricDataInput(
  query: EndpointMetricsQuery,
  window: MetricsWindow,
): GetMetricDataCommandInput {
  const dimensions = [
    { Name: 'EndpointName', Value: query.endpointName },
    { Name: 'VariantName', Value: query.variantName },
  ];
  const queries: MetricDataQuery[] = ENDPOINT_METRIC_SPECS.flatMap((spec) =>
    (Object.keys(STATISTICS) as SummaryStatistic[]).map((statistic) => ({
      Id: queryId(spec.field, statistic),
      MetricStat: {
        Metric: { Namespace: spec.namespace, MetricName: spec.metricName, Dimensions: dimensions },
        Period: window.periodSeconds,
        Stat: STATISTICS[statistic],
        Unit: spec.unit,
      },
      ReturnData: true,
    })),
  );
  return { MetricDataQueries: queries, StartTime: window.startTime, EndTime: window.endTime };
}

export interface CloudWatchEndpointMetricsOptions {
  readonly client: CloudWatchClient;
  /**
   * The current time, which decides the resolution CloudWatch still holds for a window.
   * @default Date.now
   */
  readonly now?: () => number;
}

type MutableSummaries = { -readonly [Field in SummaryField]?: MetricSummary };

/**
 * `EndpointMetricsReader` over CloudWatch GetMetricData. The metrics outlive the endpoint, so the
 * Recommend step reads them after the candidates' endpoints are deleted. Metrics without data in
 * the window (GPU ones on a CPU instance, or a window too recent for CloudWatch to have them yet)
 * are left out; with none at all, the result is `undefined`.
 */
export class CloudWatchEndpointMetrics implements EndpointMetricsReader {
  private readonly client: CloudWatchClient;
  private readonly now: () => number;

  constructor(options: CloudWatchEndpointMetricsOptions) {
    this.client = options.client;
    this.now = options.now ?? (() => Date.now());
  }

  async read(query: EndpointMetricsQuery): Promise<EndpointMetrics | undefined> {
    const input = toGetMetricDataInput(query, metricsWindow(query, this.now()));
    const values = await fetchMetricData(this.client, query.endpointName, input);
    const summaries: MutableSummaries = {};
    for (const spec of ENDPOINT_METRIC_SPECS) {
      const average = singleValue(values, queryId(spec.field, 'average'), query.endpointName);
      const maximum = singleValue(values, queryId(spec.field, 'maximum'), query.endpointName);
      if (average === undefined || maximum === undefined) continue;
      summaries[spec.field] = { average: spec.convert(average), maximum: spec.convert(maximum) };
    }
    if (Object.keys(summaries).length === 0) return undefined;
    return { source: 'cloudwatch', ...summaries };
  }
}

/**
 * The one data point a window-sized period yields, or `undefined` when the metric has none. More
 * than one means the period no longer covers the window: a defect here, not in the data.
 */
function singleValue(
  values: ReadonlyMap<string, readonly number[]>,
  id: string,
  endpointName: string,
): number | undefined {
  const points = values.get(id) ?? [];
  if (points.length > 1) {
    throw new Error(
      `GetMetricData for endpoint ${endpointName}: got ${points.length} data points for ${id}, expected at most ` +
        'one, since the period spans the whole window; check metricsWindow',
    );
  }
  return points[0];
}
