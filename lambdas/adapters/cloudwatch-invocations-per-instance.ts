import type { CloudWatchClient, GetMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import type {
  EndpointMetricsQuery,
  InvocationsPerInstance,
  InvocationsPerInstanceReader,
} from '../../core/ports/index.js';
import { metricsWindow } from './cloudwatch-endpoint-metrics.js';
import { fetchMetricData } from './cloudwatch-metric-data.js';

/** The query's `Id`: a lowercase letter first, then letters, digits or underscores (MetricDataQuery). */
export const INVOCATIONS_PER_INSTANCE_QUERY_ID = 'invocationsPerInstance_sum';

/**
 * One GetMetricData request for the variant's `InvocationsPerInstance` summed over the window as
 * one period. SageMaker publishes it in `AWS/SageMaker` by `EndpointName` and `VariantName`, unit
 * None, with Sum as its statistic ("Monitor Amazon SageMaker with Amazon CloudWatch", Invocation
 * metrics, https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html): "the number
 * of invocations sent to a model, normalized by InstanceCount in each ProductionVariant.
 * 1/numberOfInstances is sent as the value on each request" (SageMaker API reference,
 * ScalingPolicyMetric, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ScalingPolicyMetric.html).
 */
export function toInvocationsPerInstanceInput(
  query: EndpointMetricsQuery,
  nowEpochMs: number,
): GetMetricDataCommandInput {
  const window = metricsWindow(query, nowEpochMs);
  return {
    MetricDataQueries: [
      {
        Id: INVOCATIONS_PER_INSTANCE_QUERY_ID,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/SageMaker',
            MetricName: 'InvocationsPerInstance',
            Dimensions: [
              { Name: 'EndpointName', Value: query.endpointName },
              { Name: 'VariantName', Value: query.variantName },
            ],
          },
          Period: window.periodSeconds,
          Stat: 'Sum',
        },
        ReturnData: true,
      },
    ],
    StartTime: window.startTime,
    EndTime: window.endTime,
  };
}

export interface CloudWatchInvocationsPerInstanceOptions {
  readonly client: CloudWatchClient;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * `InvocationsPerInstance` of a variant over a test (the proof's, or a measured multi-instance
 * candidate's). SageMaker publishes no invocation count per instance, only this one normalized by
 * the variant's instance count: the reader returns it as the variant's one entry (`scope: 'variant'`) and says so, rather than inventing a split.
 */
export class CloudWatchInvocationsPerInstance implements InvocationsPerInstanceReader {
  private readonly client: CloudWatchClient;
  private readonly now: () => number;

  constructor(options: CloudWatchInvocationsPerInstanceOptions) {
    this.client = options.client;
    this.now = options.now ?? (() => Date.now());
  }

  async read(query: EndpointMetricsQuery): Promise<InvocationsPerInstance | undefined> {
    const input = toInvocationsPerInstanceInput(query, this.now());
    const values = await fetchMetricData(this.client, query.endpointName, input);
    const points = values.get(INVOCATIONS_PER_INSTANCE_QUERY_ID) ?? [];
    if (points.length === 0) return undefined;
    const invocations = Math.round(points.reduce((sum, value) => sum + value, 0));
    return {
      scope: 'variant',
      instances: [{ instance: `each instance of variant ${query.variantName} (average)`, invocations }],
      note:
        'CloudWatch AWS/SageMaker InvocationsPerInstance (Sum over the test’s whole minutes): SageMaker ' +
        'publishes it per variant, normalized by the instance count, not per instance, so the balance ' +
        'between instances cannot be shown on AWS',
    };
  }
}
