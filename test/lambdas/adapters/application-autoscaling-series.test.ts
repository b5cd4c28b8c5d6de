import {
  ApplicationAutoScalingClient,
  ApplicationAutoScalingServiceException,
  ConcurrentUpdateException,
  DescribeScalingActivitiesCommand,
  ValidationException,
} from '@aws-sdk/client-application-auto-scaling';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import type { ScalingActivity } from '../../../core/ports/index.js';
import {
  ApplicationAutoScalingInstanceSeries,
  seriesFromActivities,
} from '../../../lambdas/adapters/application-autoscaling-series.js';
import {
  formatViolation,
  validateCommand,
  type ValidatedCommand,
} from '../../conformance/request-validator.js';

const ENDPOINT = 'mso-nightly-1a2b3c4d-ep-ramp';
const RESOURCE_ID = `endpoint/${ENDPOINT}/variant/AllTraffic`;
/** 2026-11-24T20:00:00Z: the ramp's window is 20:00–20:20. */
const T0 = Date.UTC(2026, 10, 24, 20, 0, 0);
const MINUTE = 60_000;
const FROM = T0;
const TO = T0 + 20 * MINUTE;

const autoscaling = mockClient(ApplicationAutoScalingClient);
const reader = new ApplicationAutoScalingInstanceSeries({
  autoScaling: new ApplicationAutoScalingClient({ region: 'us-east-1' }),
});

/** A SageMaker variant's activity as DescribeScalingActivities lists it. */
function activity(
  startEpochMs: number,
  endEpochMs: number | undefined,
  desired: number,
  statusCode:
    'Successful' | 'InProgress' | 'Pending' | 'Failed' | 'Unfulfilled' | 'Overridden' = 'Successful',
) {
  return {
    ActivityId: `a-${startEpochMs}`,
    ServiceNamespace: 'sagemaker' as const,
    ResourceId: RESOURCE_ID,
    ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    Description: `Setting desired instance count to ${desired}.`,
    Cause: `monitor alarm TargetTracking-${RESOURCE_ID}-AlarmHigh in state ALARM triggered policy ${ENDPOINT}-invocations-per-instance`,
    StartTime: new Date(startEpochMs),
    ...(endEpochMs === undefined ? {} : { EndTime: new Date(endEpochMs) }),
    StatusCode: statusCode,
  };
}

function givenActivities(...activities: ReturnType<typeof activity>[]): void {
  autoscaling.on(DescribeScalingActivitiesCommand).resolves({ ScalingActivities: activities });
}

function serviceError(name: string, message: string): ApplicationAutoScalingServiceException {
  return new ApplicationAutoScalingServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

describe('ApplicationAutoScalingInstanceSeries', () => {
  beforeEach(() => {
    autoscaling.reset();
  });

  describe('the request', () => {
    it("asks for the AllTraffic variant's activities in the sagemaker namespace, 50 a page", async () => {
      // Arrange
      givenActivities();

      // Act
      await reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
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

    it('sends requests Application Auto Scaling declares valid', async () => {
      // Arrange
      givenActivities();

      // Act
      await reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      const violations = autoscaling
        .calls()
        .flatMap((call) => validateCommand(call.args[0] as unknown as ValidatedCommand).map(formatViolation));
      expect(violations).toEqual([]);
    });

    it('follows NextToken to the last page and orders the activities of all pages oldest first', async () => {
      // Arrange: newest first, split over two pages.
      autoscaling.on(DescribeScalingActivitiesCommand).resolves({
        ScalingActivities: [activity(T0 + 10 * MINUTE, T0 + 14 * MINUTE, 4)],
        NextToken: 'page-2',
      });
      autoscaling
        .on(DescribeScalingActivitiesCommand, { NextToken: 'page-2' })
        .resolves({ ScalingActivities: [activity(T0 + 4 * MINUTE, T0 + 8 * MINUTE, 3)] });

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(
        autoscaling
          .commandCalls(DescribeScalingActivitiesCommand)
          .map((call) => call.args[0].input.NextToken),
      ).toEqual([undefined, 'page-2']);
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 4 * MINUTE, inService: 2, starting: 1 },
        { atEpochMs: T0 + 8 * MINUTE, inService: 3, starting: 0 },
        { atEpochMs: T0 + 10 * MINUTE, inService: 3, starting: 1 },
        { atEpochMs: T0 + 14 * MINUTE, inService: 4, starting: 0 },
      ]);
    });

    it('reads a different variant when told', async () => {
      // Arrange
      givenActivities();
      const blue = new ApplicationAutoScalingInstanceSeries({
        autoScaling: new ApplicationAutoScalingClient({ region: 'us-east-1' }),
        variantName: 'Blue',
      });

      // Act
      await blue.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      expect(autoscaling.commandCalls(DescribeScalingActivitiesCommand)[0]?.args[0].input.ResourceId).toBe(
        `endpoint/${ENDPOINT}/variant/Blue`,
      );
    });
  });

  describe('the series', () => {
    it('counts a scale-out’s added instances as starting from its start and in service from its end', async () => {
      // Arrange
      givenActivities(activity(T0 + 3 * MINUTE, T0 + 9 * MINUTE, 3));

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 3 * MINUTE, inService: 2, starting: 1 },
        { atEpochMs: T0 + 9 * MINUTE, inService: 3, starting: 0 },
      ]);
    });

    it('starts each of two scale-outs from the count the previous one left', async () => {
      // Arrange
      givenActivities(
        activity(T0 + 2 * MINUTE, T0 + 6 * MINUTE, 4),
        activity(T0 + 8 * MINUTE, T0 + 12 * MINUTE, 7),
      );

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 2 * MINUTE, inService: 2, starting: 2 },
        { atEpochMs: T0 + 6 * MINUTE, inService: 4, starting: 0 },
        { atEpochMs: T0 + 8 * MINUTE, inService: 4, starting: 3 },
        { atEpochMs: T0 + 12 * MINUTE, inService: 7, starting: 0 },
      ]);
    });

    it('changes nothing for a failed, an unfulfilled and an overridden activity, and goes on after them', async () => {
      // Arrange
      givenActivities(
        activity(T0 + 1 * MINUTE, T0 + 2 * MINUTE, 5, 'Failed'),
        activity(T0 + 3 * MINUTE, T0 + 4 * MINUTE, 5, 'Unfulfilled'),
        activity(T0 + 5 * MINUTE, T0 + 6 * MINUTE, 5, 'Overridden'),
        activity(T0 + 7 * MINUTE, T0 + 11 * MINUTE, 3),
      );

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 7 * MINUTE, inService: 2, starting: 1 },
        { atEpochMs: T0 + 11 * MINUTE, inService: 3, starting: 0 },
      ]);
    });

    it('gives an activity in progress at the read its starting point only', async () => {
      // Arrange
      givenActivities(activity(T0 + 15 * MINUTE, undefined, 5, 'InProgress'));

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 15 * MINUTE, inService: 2, starting: 3 },
      ]);
    });

    it('keeps a scale-in’s instances billed until its end, then counts the desired number', async () => {
      // Arrange
      givenActivities(activity(T0 + 12 * MINUTE, T0 + 14 * MINUTE, 2));

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 4 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 4, starting: 0 },
        { atEpochMs: T0 + 14 * MINUTE, inService: 2, starting: 0 },
      ]);
    });

    it('starts from the count the activities before the window left, at the window’s start', async () => {
      // Arrange: one scale-out ended before the ramp, one is under way at its start.
      givenActivities(
        activity(T0 - 30 * MINUTE, T0 - 25 * MINUTE, 3),
        activity(T0 - 2 * MINUTE, T0 + 3 * MINUTE, 4),
      );

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 3, starting: 1 },
        { atEpochMs: T0 + 3 * MINUTE, inService: 4, starting: 0 },
      ]);
    });

    it('drops the changes after the window', async () => {
      // Arrange
      givenActivities(
        activity(T0 + 5 * MINUTE, T0 + 9 * MINUTE, 3),
        activity(T0 + 19 * MINUTE, T0 + 23 * MINUTE, 4),
        activity(T0 + 25 * MINUTE, T0 + 29 * MINUTE, 2),
      );

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([
        { atEpochMs: FROM, inService: 2, starting: 0 },
        { atEpochMs: T0 + 5 * MINUTE, inService: 2, starting: 1 },
        { atEpochMs: T0 + 9 * MINUTE, inService: 3, starting: 0 },
        { atEpochMs: T0 + 19 * MINUTE, inService: 3, starting: 1 },
      ]);
    });

    it('skips an activity whose description names no count rather than guessing one', async () => {
      // Arrange
      givenActivities({
        ...activity(T0 + 3 * MINUTE, T0 + 9 * MINUTE, 3),
        Description: 'Updating the endpoint.',
      });

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO, { initialInService: 2 });

      // Assert
      expect(series).toEqual([{ atEpochMs: FROM, inService: 2, starting: 0 }]);
    });

    it('shows only what the activities show when the count before them is not given', async () => {
      // Arrange
      givenActivities(
        activity(T0 + 2 * MINUTE, T0 + 6 * MINUTE, 4),
        activity(T0 + 8 * MINUTE, T0 + 12 * MINUTE, 7),
      );

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      expect(series).toEqual([
        { atEpochMs: T0 + 6 * MINUTE, inService: 4, starting: 0 },
        { atEpochMs: T0 + 8 * MINUTE, inService: 4, starting: 3 },
        { atEpochMs: T0 + 12 * MINUTE, inService: 7, starting: 0 },
      ]);
    });

    it('is empty for a variant with no activity (never registered), when no starting count is given', async () => {
      // Arrange
      autoscaling.on(DescribeScalingActivitiesCommand).resolves({});

      // Act
      const series = await reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      expect(series).toEqual([]);
    });
  });

  describe('errors', () => {
    it('fails when Application Auto Scaling keeps throttling, with TransientServiceError', async () => {
      // Arrange
      autoscaling
        .on(DescribeScalingActivitiesCommand)
        .rejects(serviceError('ThrottlingException', 'Rate exceeded'));

      // Act
      const error = await reader.instanceSeries(ENDPOINT, FROM, TO).catch((e: unknown) => e);

      // Assert
      expect(error).toBeInstanceOf(TransientServiceError);
      expect((error as Error).message).toBe(
        `DescribeScalingActivities for ${RESOURCE_ID} failed after the SDK's own retries: ` +
          'ThrottlingException: Rate exceeded. The workflow retries the step with a longer backoff.',
      );
    });

    it('fails when an update of the target is pending, with TransientServiceError', async () => {
      // Arrange
      autoscaling
        .on(DescribeScalingActivitiesCommand)
        .rejects(new ConcurrentUpdateException({ message: 'pending update', $metadata: {} }));

      // Act
      const reading = reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      await expect(reading).rejects.toBeInstanceOf(TransientServiceError);
    });

    it('fails when the request is refused, rethrowing the SDK error unchanged', async () => {
      // Arrange
      const invalid = new ValidationException({
        message: 'Unsupported service namespace',
        $metadata: { httpStatusCode: 400 },
      });
      autoscaling.on(DescribeScalingActivitiesCommand).rejects(invalid);

      // Act
      const reading = reader.instanceSeries(ENDPOINT, FROM, TO);

      // Assert
      await expect(reading).rejects.toBe(invalid);
    });
  });
});

describe('seriesFromActivities', () => {
  const scaleOut = (
    start: number,
    end: number | undefined,
    to: number,
    status = 'Successful',
  ): ScalingActivity => ({
    startEpochMs: start,
    ...(end === undefined ? {} : { endEpochMs: end }),
    toInstanceCount: to,
    status,
    description: `Setting desired instance count to ${to}.`,
  });

  it('gives the starting count at the window’s start when no activity came before it', () => {
    // Act
    const series = seriesFromActivities([], { fromEpochMs: FROM, toEpochMs: TO, initialInService: 2 });

    // Assert
    expect(series).toEqual([{ atEpochMs: FROM, inService: 2, starting: 0 }]);
  });

  it('orders activities by time whatever their order in the input', () => {
    // Act
    const series = seriesFromActivities(
      [scaleOut(T0 + 8 * MINUTE, T0 + 12 * MINUTE, 7), scaleOut(T0 + 2 * MINUTE, T0 + 6 * MINUTE, 4)],
      { fromEpochMs: FROM, toEpochMs: TO, initialInService: 2 },
    );

    // Assert
    expect(series).toEqual([
      { atEpochMs: FROM, inService: 2, starting: 0 },
      { atEpochMs: T0 + 2 * MINUTE, inService: 2, starting: 2 },
      { atEpochMs: T0 + 6 * MINUTE, inService: 4, starting: 0 },
      { atEpochMs: T0 + 8 * MINUTE, inService: 4, starting: 3 },
      { atEpochMs: T0 + 12 * MINUTE, inService: 7, starting: 0 },
    ]);
  });

  it('lets a scale-out start from the count of one that ends at the same instant', () => {
    // Act
    const series = seriesFromActivities(
      [scaleOut(T0 + 2 * MINUTE, T0 + 6 * MINUTE, 4), scaleOut(T0 + 6 * MINUTE, T0 + 10 * MINUTE, 6)],
      { fromEpochMs: FROM, toEpochMs: TO, initialInService: 2 },
    );

    // Assert
    expect(series).toEqual([
      { atEpochMs: FROM, inService: 2, starting: 0 },
      { atEpochMs: T0 + 2 * MINUTE, inService: 2, starting: 2 },
      { atEpochMs: T0 + 6 * MINUTE, inService: 4, starting: 0 },
      { atEpochMs: T0 + 6 * MINUTE, inService: 4, starting: 2 },
      { atEpochMs: T0 + 10 * MINUTE, inService: 6, starting: 0 },
    ]);
  });

  it('adds no point for an activity that sets the count the variant already has', () => {
    // Act
    const series = seriesFromActivities([scaleOut(T0 + 2 * MINUTE, T0 + 3 * MINUTE, 2)], {
      fromEpochMs: FROM,
      toEpochMs: TO,
      initialInService: 2,
    });

    // Assert
    expect(series).toEqual([{ atEpochMs: FROM, inService: 2, starting: 0 }]);
  });

  it('counts a pending activity’s instances as starting, as an in-progress one’s', () => {
    // Act
    const series = seriesFromActivities([scaleOut(T0 + 2 * MINUTE, undefined, 3, 'Pending')], {
      fromEpochMs: FROM,
      toEpochMs: TO,
      initialInService: 2,
    });

    // Assert
    expect(series).toEqual([
      { atEpochMs: FROM, inService: 2, starting: 0 },
      { atEpochMs: T0 + 2 * MINUTE, inService: 2, starting: 1 },
    ]);
  });

  it('refuses a window that ends before it starts, or a starting count that is not a whole number', () => {
    // Act
    const reading = (): unknown =>
      seriesFromActivities([], { fromEpochMs: TO, toEpochMs: FROM, initialInService: 1.5 });

    // Assert
    expect(reading).toThrow(
      new RangeError(
        `Instance series window: fromEpochMs ${TO} and toEpochMs ${FROM}: expected finite epoch milliseconds, ` +
          "toEpochMs at or after fromEpochMs; initialInService: got 1.5, expected a whole number ≥ 0 (the policy's minimum)",
      ),
    );
  });
});
