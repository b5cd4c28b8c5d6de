import {
  ApplicationAutoScalingClient,
  ApplicationAutoScalingServiceException,
  DescribeScalingActivitiesCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { AwsAsyncEndpointObserver } from '../../../lambdas/adapters/async-endpoint-observer.js';
import { toInstanceCountOf } from '../../../lambdas/adapters/scaling-activities.js';

const ENDPOINT = 'mso-nightly-1a2b3c4d-ep-async';
const RESOURCE_ID = `endpoint/${ENDPOINT}/variant/AllTraffic`;
/** 2026-05-01T12:00:00Z: the burst starts at 12:00:20 and its window ends at 12:04:40. */
const NOON = Date.UTC(2026, 4, 1, 12, 0, 0);
const MINUTE = 60_000;

const autoscaling = mockClient(ApplicationAutoScalingClient);
const cloudwatch = mockClient(CloudWatchClient);
const observer = new AwsAsyncEndpointObserver({
  autoScaling: new ApplicationAutoScalingClient({ region: 'us-east-1' }),
  cloudWatch: new CloudWatchClient({ region: 'us-east-1' }),
  now: () => NOON + 10 * MINUTE,
});

function activity(startEpochMs: number, description: string, extra: Record<string, unknown> = {}) {
  return {
    ActivityId: `a-${startEpochMs}`,
    ServiceNamespace: 'sagemaker' as const,
    ResourceId: RESOURCE_ID,
    ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    Description: description,
    Cause:
      'monitor alarm mso-nightly-1a2b3c4d-ep-async-has-backlog-without-capacity in state ALARM triggered policy',
    StartTime: new Date(startEpochMs),
    StatusCode: 'Successful' as const,
    ...extra,
  };
}

const TIME_IN_BACKLOG_SEARCH = `SEARCH('{AWS/SageMaker,EndpointName,VariantName} MetricName="TimeInBacklog" EndpointName="${ENDPOINT}"'`;

describe('AwsAsyncEndpointObserver', () => {
  beforeEach(() => {
    autoscaling.reset();
    cloudwatch.reset();
  });

  describe('scaling activities', () => {
    it("asks for the variant's activities in the sagemaker namespace, 50 a page", async () => {
      autoscaling.on(DescribeScalingActivitiesCommand).resolves({ ScalingActivities: [] });

      await observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON);

      expect(
        autoscaling.commandCalls(DescribeScalingActivitiesCommand).map((call) => call.args[0].input),
      ).toEqual([
        {
          ServiceNamespace: 'sagemaker',
          ResourceId: RESOURCE_ID,
          ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
          MaxResults: 50,
        },
      ]);
    });

    it('keeps the activities since the instant, oldest first, with the instance count each set', async () => {
      // Arrange: newest first, as the API lists them.
      autoscaling.on(DescribeScalingActivitiesCommand).resolves({
        ScalingActivities: [
          activity(NOON + 9 * MINUTE, 'Setting desired instance count to 0.', { StatusCode: 'InProgress' }),
          activity(NOON + 2 * MINUTE, 'Setting desired instance count to 1.', {
            EndTime: new Date(NOON + 7 * MINUTE),
          }),
          activity(NOON - 30 * MINUTE, 'Setting desired instance count to 0.'),
        ],
      });

      // Act
      const activities = await observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON);

      // Assert
      expect(activities).toEqual([
        {
          startEpochMs: NOON + 2 * MINUTE,
          endEpochMs: NOON + 7 * MINUTE,
          toInstanceCount: 1,
          status: 'Successful',
          description: 'Setting desired instance count to 1.',
        },
        {
          startEpochMs: NOON + 9 * MINUTE,
          toInstanceCount: 0,
          status: 'InProgress',
          description: 'Setting desired instance count to 0.',
        },
      ]);
    });

    it('follows NextToken while the pages are newer than the instant', async () => {
      autoscaling.on(DescribeScalingActivitiesCommand, { NextToken: undefined }).resolves({
        ScalingActivities: [activity(NOON + 5 * MINUTE, 'Setting desired instance count to 2.')],
        NextToken: 'page-2',
      });
      autoscaling.on(DescribeScalingActivitiesCommand, { NextToken: 'page-2' }).resolves({
        ScalingActivities: [activity(NOON + 1 * MINUTE, 'Setting desired instance count to 1.')],
      });

      const activities = await observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON);

      expect(activities.map((a) => a.toInstanceCount)).toEqual([1, 2]);
      expect(autoscaling.commandCalls(DescribeScalingActivitiesCommand)[1]?.args[0].input).toEqual({
        ServiceNamespace: 'sagemaker',
        ResourceId: RESOURCE_ID,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        MaxResults: 50,
        NextToken: 'page-2',
      });
    });

    it('stops paging once a page reaches back before the instant', async () => {
      autoscaling.on(DescribeScalingActivitiesCommand, { NextToken: undefined }).resolves({
        ScalingActivities: [
          activity(NOON + 1 * MINUTE, 'Setting desired instance count to 1.'),
          activity(NOON - 1 * MINUTE, 'Setting desired instance count to 0.'),
        ],
        NextToken: 'page-2',
      });

      const activities = await observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON);

      expect(activities).toHaveLength(1);
      expect(autoscaling.commandCalls(DescribeScalingActivitiesCommand)).toHaveLength(1);
    });

    it('leaves toInstanceCount out when the description does not say it', async () => {
      autoscaling.on(DescribeScalingActivitiesCommand).resolves({
        ScalingActivities: [
          activity(NOON + MINUTE, 'Failed to set desired instance count.', { StatusCode: 'Failed' }),
        ],
      });

      const [only] = await observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON);

      expect(only).toEqual({
        startEpochMs: NOON + MINUTE,
        status: 'Failed',
        description: 'Failed to set desired instance count.',
      });
    });

    it.each([
      ['Setting desired instance count to 1.', 1],
      ['Setting desired instance count to 48.', 48],
      ['Successfully set desired instance count to 3. Change successfully fulfilled by sagemaker.', 3],
      ['Setting desired instance count.', undefined],
      [undefined, undefined],
    ])('reads the instance count of %j as %j', (description, expected) => {
      expect(toInstanceCountOf(description)).toBe(expected);
    });

    it('fails when throttled beyond the SDK retries, with TransientServiceError', async () => {
      autoscaling.on(DescribeScalingActivitiesCommand).rejects(
        new ApplicationAutoScalingServiceException({
          name: 'ThrottlingException',
          message: 'Rate exceeded',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
      );

      await expect(observer.scalingActivities(ENDPOINT, 'AllTraffic', NOON)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });
  });

  describe('backlog metrics', () => {
    it('asks for the backlog size and the time in backlog over the window in whole minutes', async () => {
      // Arrange
      cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });

      // Act
      await observer.backlogMetrics(ENDPOINT, NOON + 20_000, NOON + 4 * MINUTE + 40_000);

      // Assert
      expect(cloudwatch.commandCalls(GetMetricDataCommand).map((call) => call.args[0].input)).toEqual([
        {
          StartTime: new Date(NOON),
          EndTime: new Date(NOON + 5 * MINUTE),
          MetricDataQueries: [
            {
              Id: 'backlog_size_max',
              MetricStat: {
                Metric: {
                  Namespace: 'AWS/SageMaker',
                  MetricName: 'ApproximateBacklogSize',
                  Dimensions: [{ Name: 'EndpointName', Value: ENDPOINT }],
                },
                Period: 60,
                Stat: 'Maximum',
              },
              ReturnData: true,
            },
            {
              Id: 'time_in_backlog_sum',
              Expression: `SUM(${TIME_IN_BACKLOG_SEARCH}, 'Sum', 60))`,
              Period: 60,
              ReturnData: true,
            },
            {
              Id: 'time_in_backlog_count',
              Expression: `SUM(${TIME_IN_BACKLOG_SEARCH}, 'SampleCount', 60))`,
              Period: 60,
              ReturnData: true,
            },
            {
              Id: 'time_in_backlog_max',
              Expression: `MAX(${TIME_IN_BACKLOG_SEARCH}, 'Maximum', 60))`,
              Period: 60,
              ReturnData: true,
            },
          ],
        },
      ]);
    });

    it('asks for 5-minute periods when the window is older than the 15 days CloudWatch keeps minutes', async () => {
      cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
      const longAgo = NOON - 20 * 24 * 60 * MINUTE;

      await observer.backlogMetrics(ENDPOINT, longAgo + 20_000, longAgo + 7 * MINUTE);

      const input = cloudwatch.commandCalls(GetMetricDataCommand)[0]?.args[0].input;
      expect(input?.StartTime).toEqual(new Date(longAgo));
      expect(input?.EndTime).toEqual(new Date(longAgo + 10 * MINUTE));
      expect(input?.MetricDataQueries?.map((query) => query.Period)).toEqual([undefined, 300, 300, 300]);
      expect(input?.MetricDataQueries?.[0]?.MetricStat?.Period).toBe(300);
    });

    it('weighs the average time in backlog by requests and converts microseconds to milliseconds', async () => {
      // Arrange: minute 1: 10 requests waited 50 s in all; minute 2: 30 requests waited 30 s in all.
      cloudwatch.on(GetMetricDataCommand).resolves({
        MetricDataResults: [
          { Id: 'backlog_size_max', Values: [12, 40, 3], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_sum', Values: [50_000_000, 30_000_000], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_count', Values: [10, 30], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_max', Values: [9_000_000, 2_500_000], StatusCode: 'Complete' },
        ],
      });

      // Act
      const metrics = await observer.backlogMetrics(ENDPOINT, NOON, NOON + 3 * MINUTE);

      // Assert: 80 s over 40 requests is 2 s, not the 3 s of averaging the two minutes' averages.
      expect(metrics).toEqual({ timeInBacklogMs: { average: 2000, maximum: 9000 }, maxBacklogSize: 40 });
    });

    it('leaves the figures out, not zero, when CloudWatch has no data yet', async () => {
      cloudwatch.on(GetMetricDataCommand).resolves({
        MetricDataResults: [
          { Id: 'backlog_size_max', Values: [], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_sum', Values: [], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_count', Values: [], StatusCode: 'Complete' },
          { Id: 'time_in_backlog_max', Values: [], StatusCode: 'Complete' },
        ],
      });

      await expect(observer.backlogMetrics(ENDPOINT, NOON, NOON + MINUTE)).resolves.toEqual({});
    });

    it("joins one query's values across pages", async () => {
      cloudwatch.on(GetMetricDataCommand, { NextToken: undefined }).resolves({
        MetricDataResults: [{ Id: 'backlog_size_max', Values: [5], StatusCode: 'PartialData' }],
        NextToken: 'page-2',
      });
      cloudwatch.on(GetMetricDataCommand, { NextToken: 'page-2' }).resolves({
        MetricDataResults: [{ Id: 'backlog_size_max', Values: [17], StatusCode: 'Complete' }],
      });

      const metrics = await observer.backlogMetrics(ENDPOINT, NOON, NOON + 2 * MINUTE);

      expect(metrics).toEqual({ maxBacklogSize: 17 });
      expect(cloudwatch.commandCalls(GetMetricDataCommand)[1]?.args[0].input.NextToken).toBe('page-2');
    });

    it('fails when CloudWatch answers InternalError for a query, with TransientServiceError', async () => {
      cloudwatch.on(GetMetricDataCommand).resolves({
        MetricDataResults: [{ Id: 'time_in_backlog_sum', Values: [], StatusCode: 'InternalError' }],
      });

      await expect(observer.backlogMetrics(ENDPOINT, NOON, NOON + MINUTE)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });

    it('fails when GetMetricData is throttled beyond the SDK retries, with TransientServiceError', async () => {
      cloudwatch.on(GetMetricDataCommand).rejects(
        new CloudWatchServiceException({
          name: 'Throttling',
          message: 'Rate exceeded',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
      );

      await expect(observer.backlogMetrics(ENDPOINT, NOON, NOON + MINUTE)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });

    it('fails when the endpoint name could break out of the search expression, before calling CloudWatch', async () => {
      await expect(observer.backlogMetrics(`x" OR MetricName="y`, NOON, NOON + MINUTE)).rejects.toThrow(
        /expected a SageMaker endpoint name/,
      );
      expect(cloudwatch.calls()).toHaveLength(0);
    });

    it('fails when the window ends before it starts', async () => {
      await expect(observer.backlogMetrics(ENDPOINT, NOON + MINUTE, NOON)).rejects.toThrow(
        /expected finite epoch milliseconds with endEpochMs at or after startEpochMs/,
      );
    });
  });

  describe('backlog series', () => {
    it("asks for ApproximateBacklogSize's maximum each minute over the window, oldest first", async () => {
      // Arrange
      cloudwatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });

      // Act
      await observer.backlogSeries(ENDPOINT, NOON + 20_000, NOON + 4 * MINUTE + 40_000);

      // Assert
      expect(cloudwatch.commandCalls(GetMetricDataCommand).map((call) => call.args[0].input)).toEqual([
        {
          StartTime: new Date(NOON),
          EndTime: new Date(NOON + 5 * MINUTE),
          ScanBy: 'TimestampAscending',
          MetricDataQueries: [
            {
              Id: 'backlog_size',
              MetricStat: {
                Metric: {
                  Namespace: 'AWS/SageMaker',
                  MetricName: 'ApproximateBacklogSize',
                  Dimensions: [{ Name: 'EndpointName', Value: ENDPOINT }],
                },
                Period: 60,
                Stat: 'Maximum',
              },
              ReturnData: true,
            },
          ],
        },
      ]);
    });

    it('gives each value at the start of its period, in time order across pages', async () => {
      // Arrange
      cloudwatch
        .on(GetMetricDataCommand)
        .resolvesOnce({
          MetricDataResults: [
            {
              Id: 'backlog_size',
              Timestamps: [new Date(NOON + MINUTE)],
              Values: [7],
              StatusCode: 'PartialData',
            },
          ],
          NextToken: 'page-2',
        })
        .resolvesOnce({
          MetricDataResults: [
            { Id: 'backlog_size', Timestamps: [new Date(NOON)], Values: [12], StatusCode: 'Complete' },
          ],
        });

      // Act
      const series = await observer.backlogSeries(ENDPOINT, NOON, NOON + 2 * MINUTE);

      // Assert
      expect(series).toEqual([
        { atEpochMs: NOON, size: 12 },
        { atEpochMs: NOON + MINUTE, size: 7 },
      ]);
    });

    it('fails when the endpoint name could break out of the query, before calling CloudWatch', async () => {
      await expect(observer.backlogSeries(`x" OR MetricName="y`, NOON, NOON + MINUTE)).rejects.toThrow(
        /expected a SageMaker endpoint name/,
      );
      expect(cloudwatch.calls()).toHaveLength(0);
    });
  });
});
