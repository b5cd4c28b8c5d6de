import {
  type ApplicationAutoScalingClient,
  DescribeScalingActivitiesCommand,
  type DescribeScalingActivitiesCommandOutput,
  type ScalingActivity as SdkScalingActivity,
} from '@aws-sdk/client-application-auto-scaling';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { ScalingActivity } from '../../core/ports/index.js';
import { SAGEMAKER_VARIANT_DIMENSION } from './application-autoscaling-registry.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * A SageMaker variant's scaling activities, read the one way the async summary and "Record ramp"
 * both need: every page of DescribeScalingActivities, converted to the port's `ScalingActivity`,
 * oldest first.
 */

/**
 * The largest page DescribeScalingActivities returns: `MaxResults` "can be between 1 and 50"
 * (Smithy model aws/api-models-aws, application-auto-scaling 2016-02-06,
 * `DescribeScalingActivitiesRequest.MaxResults`; API reference, DescribeScalingActivities).
 */
export const ACTIVITIES_PAGE_SIZE = 50;

/**
 * The count comes from the activity's `Description`, which for a SageMaker variant reads
 * "Setting desired instance count to 3." (the form of "Setting desired count to 1." in the
 * Application Auto Scaling user guide, "Scaling activities for Application Auto Scaling"; SageMaker
 * developer guide, "Check the status of a scaling activity", quotes the status message "Failed to
 * set desired instance count to 110.").
 */
const DESIRED_COUNT = /desired instance count to (\d+)/i;

export function toInstanceCountOf(description: string | undefined): number | undefined {
  const digits = description === undefined ? undefined : DESIRED_COUNT.exec(description)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

/**
 * The variant's activities that started at or after `sinceEpochMs` (0: all of them, six weeks at
 * most: Application Auto Scaling keeps no more), oldest first. The service lists them newest first,
 * so paging stops at the first page that reaches back before `sinceEpochMs`. A variant never
 * registered simply has no activities (an empty page: the operation declares no not-found error).
 */
export async function readScalingActivities(
  client: ApplicationAutoScalingClient,
  resourceId: string,
  sinceEpochMs: number,
): Promise<ScalingActivity[]> {
  const activities: ScalingActivity[] = [];
  let nextToken: string | undefined;
  let reachedBefore = false;
  do {
    const page = await describePage(client, resourceId, nextToken);
    for (const activity of page.ScalingActivities ?? []) {
      const converted = toScalingActivity(activity);
      if (converted === undefined) continue;
      if (converted.startEpochMs < sinceEpochMs) {
        reachedBefore = true;
        continue;
      }
      activities.push(converted);
    }
    nextToken = page.NextToken === '' ? undefined : page.NextToken;
  } while (nextToken !== undefined && !reachedBefore);
  return activities.sort((a, b) => a.startEpochMs - b.startEpochMs);
}

/**
 * One page. Throttling, server faults and `ConcurrentUpdateException` (declared by the operation)
 * become `TransientServiceError`; anything else is rethrown unchanged.
 */
async function describePage(
  client: ApplicationAutoScalingClient,
  resourceId: string,
  nextToken: string | undefined,
): Promise<DescribeScalingActivitiesCommandOutput> {
  try {
    return await client.send(
      new DescribeScalingActivitiesCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId,
        ScalableDimension: SAGEMAKER_VARIANT_DIMENSION,
        MaxResults: ACTIVITIES_PAGE_SIZE,
        ...(nextToken === undefined ? {} : { NextToken: nextToken }),
      }),
    );
  } catch (error) {
    if (!isTransient(error) && errorName(error) !== 'ConcurrentUpdateException') throw error;
    throw new TransientServiceError(
      `DescribeScalingActivities for ${resourceId} failed after the SDK's own retries: ` +
        `${errorName(error) ?? 'Error'}: ${errorMessage(error)}. The workflow retries the step with a longer backoff.`,
      { operation: 'DescribeScalingActivities', subject: resourceId, errorName: errorName(error) },
      { cause: error },
    );
  }
}

/** `StartTime` and `StatusCode` are required by the model; an activity without a start is skipped. */
function toScalingActivity(activity: SdkScalingActivity): ScalingActivity | undefined {
  const startEpochMs = activity.StartTime?.getTime();
  if (startEpochMs === undefined) return undefined;
  const toInstanceCount = toInstanceCountOf(activity.Description);
  return {
    startEpochMs,
    ...(activity.EndTime === undefined ? {} : { endEpochMs: activity.EndTime.getTime() }),
    ...(toInstanceCount === undefined ? {} : { toInstanceCount }),
    status: activity.StatusCode ?? 'Unknown',
    description: activity.Description ?? '',
  };
}
