import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type { EndpointMetricsQuery } from '../../../core/ports/index.js';
import { CloudWatchInvocationsPerInstance } from '../../../lambdas/adapters/cloudwatch-invocations-per-instance.js';

const ENDPOINT = 'mso-nightly-1a2b3c4d-ep-c5-large-prove';

/** The proof's step from 12:32:34.500 to 12:33:40.200, read two minutes later. */
const QUERY: EndpointMetricsQuery = {
  endpointName: ENDPOINT,
  variantName: 'AllTraffic',
  startEpochMs: Date.parse('2025-03-10T12:32:34.500Z'),
  endEpochMs: Date.parse('2025-03-10T12:33:40.200Z'),
};
const NOW = Date.parse('2025-03-10T12:35:40Z');

const cloudwatch = mockClient(CloudWatchClient);
const reader = new CloudWatchInvocationsPerInstance({
  client: new CloudWatchClient({ region: 'us-east-1' }),
  now: () => NOW,
});

beforeEach(() => {
  cloudwatch.reset();
});

describe('CloudWatchInvocationsPerInstance', () => {
  it('asks GetMetricData for the variant’s InvocationsPerInstance summed over the whole minutes of the window', async () => {
    // Prepare
    cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });

    // Act
    await reader.read(QUERY);

    // Assert
    expect(cloudwatch.commandCalls(GetMetricDataCommand).map((call) => call.args[0].input)).toEqual([
      {
        MetricDataQueries: [
          {
            Id: 'invocationsPerInstance_sum',
            MetricStat: {
              Metric: {
                Namespace: 'AWS/SageMaker',
                MetricName: 'InvocationsPerInstance',
                Dimensions: [
                  { Name: 'EndpointName', Value: ENDPOINT },
                  { Name: 'VariantName', Value: 'AllTraffic' },
                ],
              },
              Period: 120,
              Stat: 'Sum',
            },
            ReturnData: true,
          },
        ],
        StartTime: new Date('2025-03-10T12:32:00Z'),
        EndTime: new Date('2025-03-10T12:34:00Z'),
      },
    ]);
  });

  it('returns the variant’s figure as one entry standing for every instance, and says why', async () => {
    // Prepare: 9,000 invocations over 2 instances, 1/2 published per request.
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        {
          Id: 'invocationsPerInstance_sum',
          Values: [4500],
          Timestamps: [new Date()],
          StatusCode: 'Complete',
        },
      ],
    });

    // Act
    const found = await reader.read(QUERY);

    // Assert
    expect(found).toEqual({
      scope: 'variant',
      instances: [{ instance: 'each instance of variant AllTraffic (average)', invocations: 4500 }],
      note:
        'CloudWatch AWS/SageMaker InvocationsPerInstance (Sum over the test’s whole minutes): SageMaker publishes it ' +
        'per variant, normalized by the instance count, not per instance, so the balance between instances cannot be shown on AWS',
    });
  });

  it('returns nothing when CloudWatch has no data point for the window yet', async () => {
    // Prepare
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'invocationsPerInstance_sum', Values: [], Timestamps: [], StatusCode: 'Complete' },
      ],
    });

    // Act
    const found = await reader.read(QUERY);

    // Assert
    expect(found).toBeUndefined();
  });
});
