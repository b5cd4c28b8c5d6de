import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { type CloudWatchClient, type GetMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import type {
  AsyncBacklogMetrics,
  AsyncEndpointObserver,
  BacklogSample,
  ScalingActivity,
} from '../../core/ports/index.js';
import { variantResourceId } from './application-autoscaling-registry.js';
import { fetchMetricData, fetchMetricSeries } from './cloudwatch-metric-data.js';
import { retainedResolutionSeconds } from './cloudwatch-endpoint-metrics.js';
import { readScalingActivities } from './scaling-activities.js';

/**
 * Metric names, dimensions and units as "Monitor Asynchronous Endpoint" (SageMaker developer guide,
 * async-inference-monitor) lists them, all in `AWS/SageMaker`: `ApproximateBacklogSize` (Count)
 * with the `EndpointName` dimension only; `TimeInBacklog` (Microseconds) with `EndpointName` and
 * `VariantName`.
 */
const NAMESPACE = 'AWS/SageMaker';
const MICROSECONDS_PER_MILLISECOND = 1000;

/** Query ids: letters, digits and underscores, starting with a lowercase letter (CloudWatch API reference, MetricDataQuery). */
export const BACKLOG_QUERY_IDS = {
  maxBacklogSize: 'backlog_size_max',
  timeInBacklogSum: 'time_in_backlog_sum',
  timeInBacklogCount: 'time_in_backlog_count',
  timeInBacklogMax: 'time_in_backlog_max',
  backlogSize: 'backlog_size',
} as const;

/**
 * SageMaker endpoint names: letters, digits and hyphens, at most 63 characters (SageMaker API
 * reference, CreateEndpoint `EndpointName`). Checked because the name goes inside a search expression.
 */
const ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/**
 * One GetMetricData request over the window in periods of the finest resolution CloudWatch still
 * holds (one minute for a recent window).
 *
 * `TimeInBacklog` carries a `VariantName` dimension, which this port's caller does not pass, so it
 * is found with a search expression over the endpoint's variants (exact match on `EndpointName`)
 * and summed across them: Sum and SampleCount give the exact average over the window (an average of
 * per-minute averages would weigh a quiet minute like a busy one), Maximum the largest wait.
 */
export function toBacklogMetricsInput(
  endpointName: string,
  window: { readonly startTime: Date; readonly endTime: Date; readonly periodSeconds: number },
): GetMetricDataCommandInput {
  if (!ENDPOINT_NAME.test(endpointName)) {
    throw new TypeError(
      `Backlog metrics: got the endpoint name ${JSON.stringify(endpointName)}, expected a SageMaker endpoint name ` +
        '(letters, digits and hyphens, at most 63 characters)',
    );
  }
  const period = window.periodSeconds;
  const timeInBacklog = (stat: string): string =>
    `SEARCH('{${NAMESPACE},EndpointName,VariantName} MetricName="TimeInBacklog" EndpointName="${endpointName}"', '${stat}', ${period})`;
  return {
    StartTime: window.startTime,
    EndTime: window.endTime,
    MetricDataQueries: [
      {
        Id: BACKLOG_QUERY_IDS.maxBacklogSize,
        MetricStat: {
          Metric: {
            Namespace: NAMESPACE,
            MetricName: 'ApproximateBacklogSize',
            Dimensions: [{ Name: 'EndpointName', Value: endpointName }],
          },
          Period: period,
          Stat: 'Maximum',
        },
        ReturnData: true,
      },
      {
        Id: BACKLOG_QUERY_IDS.timeInBacklogSum,
        Expression: `SUM(${timeInBacklog('Sum')})`,
        Period: period,
        ReturnData: true,
      },
      {
        Id: BACKLOG_QUERY_IDS.timeInBacklogCount,
        Expression: `SUM(${timeInBacklog('SampleCount')})`,
        Period: period,
        ReturnData: true,
      },
      {
        Id: BACKLOG_QUERY_IDS.timeInBacklogMax,
        Expression: `MAX(${timeInBacklog('Maximum')})`,
        Period: period,
        ReturnData: true,
      },
    ],
  };
}

/**
 * `ApproximateBacklogSize` over the window, one Maximum per period: the backlog chart's points. The
 * metric has the `EndpointName` dimension only ("Monitor Asynchronous Endpoint",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/async-inference-monitor.html).
 */
export function toBacklogSeriesInput(
  endpointName: string,
  window: { readonly startTime: Date; readonly endTime: Date; readonly periodSeconds: number },
): GetMetricDataCommandInput {
  const [backlogSize] = toBacklogMetricsInput(endpointName, window).MetricDataQueries ?? [];
  if (backlogSize?.MetricStat === undefined) throw new TypeError('no ApproximateBacklogSize query');
  return {
    StartTime: window.startTime,
    EndTime: window.endTime,
    ScanBy: 'TimestampAscending',
    MetricDataQueries: [{ ...backlogSize, Id: BACKLOG_QUERY_IDS.backlogSize }],
  };
}

export interface AwsAsyncEndpointObserverOptions {
  readonly autoScaling: ApplicationAutoScalingClient;
  readonly cloudWatch: CloudWatchClient;
  /** The current time, which decides the resolution CloudWatch still holds. @default Date.now */
  readonly now?: () => number;
}

const SECOND_MS = 1000;

/**
 * `AsyncEndpointObserver` over Application Auto Scaling (the variant's scaling activities) and
 * CloudWatch (its queue). Best effort by nature: CloudWatch publishes minutes late, so a window
 * read right after a burst may lack figures, which are then absent rather than zero.
 */
export class AwsAsyncEndpointObserver implements AsyncEndpointObserver {
  private readonly autoScaling: ApplicationAutoScalingClient;
  private readonly cloudWatch: CloudWatchClient;
  private readonly now: () => number;

  constructor(options: AwsAsyncEndpointObserverOptions) {
    this.autoScaling = options.autoScaling;
    this.cloudWatch = options.cloudWatch;
    this.now = options.now ?? (() => Date.now());
  }

  /** The variant's activities that started at or after `sinceEpochMs`, oldest first (scaling-activities.ts). */
  scalingActivities(
    endpointName: string,
    variantName: string,
    sinceEpochMs: number,
  ): Promise<readonly ScalingActivity[]> {
    return readScalingActivities(
      this.autoScaling,
      variantResourceId(endpointName, variantName),
      sinceEpochMs,
    );
  }

  async backlogMetrics(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<AsyncBacklogMetrics> {
    const input = toBacklogMetricsInput(endpointName, this.window(endpointName, startEpochMs, endEpochMs));
    const values = await fetchMetricData(this.cloudWatch, endpointName, input);
    const points = (id: string): readonly number[] => values.get(id) ?? [];

    const backlogSizes = points(BACKLOG_QUERY_IDS.maxBacklogSize);
    const waitedMicros = sum(points(BACKLOG_QUERY_IDS.timeInBacklogSum));
    const requests = sum(points(BACKLOG_QUERY_IDS.timeInBacklogCount));
    const maxWaits = points(BACKLOG_QUERY_IDS.timeInBacklogMax);
    return {
      ...(requests > 0 && maxWaits.length > 0
        ? {
            timeInBacklogMs: {
              average: waitedMicros / requests / MICROSECONDS_PER_MILLISECOND,
              maximum: Math.max(...maxWaits) / MICROSECONDS_PER_MILLISECOND,
            },
          }
        : {}),
      ...(backlogSizes.length > 0 ? { maxBacklogSize: Math.max(...backlogSizes) } : {}),
    };
  }

  /** Each period's largest `ApproximateBacklogSize`, at the period's start; periods without data are absent. */
  async backlogSeries(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<readonly BacklogSample[]> {
    const input = toBacklogSeriesInput(endpointName, this.window(endpointName, startEpochMs, endEpochMs));
    const series = await fetchMetricSeries(this.cloudWatch, endpointName, input);
    return (series.get(BACKLOG_QUERY_IDS.backlogSize) ?? [])
      .filter((point) => Number.isFinite(point.atEpochMs))
      .map((point) => ({ atEpochMs: point.atEpochMs, size: point.value }))
      .sort((a, b) => a.atEpochMs - b.atEpochMs);
  }

  /** The window widened to whole periods of the finest resolution CloudWatch still holds for it. */
  private window(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): { startTime: Date; endTime: Date; periodSeconds: number } {
    if (!Number.isFinite(startEpochMs) || !Number.isFinite(endEpochMs) || endEpochMs < startEpochMs) {
      throw new TypeError(
        `Backlog metrics for ${endpointName}: got startEpochMs ${startEpochMs} and endEpochMs ${endEpochMs}, ` +
          'expected finite epoch milliseconds with endEpochMs at or after startEpochMs',
      );
    }
    const periodSeconds = retainedResolutionSeconds(startEpochMs, this.now());
    const periodMs = periodSeconds * SECOND_MS;
    const start = Math.floor(startEpochMs / periodMs) * periodMs;
    const end = Math.max(Math.ceil(endEpochMs / periodMs) * periodMs, start + periodMs);
    return { startTime: new Date(start), endTime: new Date(end), periodSeconds };
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
