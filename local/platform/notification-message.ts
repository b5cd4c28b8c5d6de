/**
 * The JSON document a local async endpoint publishes: the shape SageMaker publishes to an async
 * endpoint's SNS topics (SageMaker Developer Guide, "Check prediction results"), field for field,
 * so the notification Lambda's parser (`core/async/notification.ts`) reads local and AWS
 * messages alike:
 *
 *   { awsRegion, eventTime, receivedTime, invocationStatus, failureReason?, requestParameters:
 *     { contentType, endpointName, inputLocation }, responseParameters?, inferenceId,
 *     eventVersion: "1.0", eventSource: "aws:sagemaker", eventName: "InferenceResult" }
 *
 * A success names the result (`responseParameters.outputLocation`); a failure whose model answered
 * with an error body names where it was written (`responseParameters.failureLocation`).
 */
import { InvocationStatuses } from '../../core/async/index.js';

export interface NotificationRequest {
  readonly endpointName: string;
  readonly inferenceId: string;
  readonly inputLocation: string;
  readonly contentType: string;
  readonly receivedAtEpochMs: number;
}

export type NotificationOutcome =
  | { readonly status: 'completed'; readonly outputLocation: string; readonly contentType: string }
  | {
      readonly status: 'failed';
      readonly failureReason: string;
      /** Where the model's error response was written; absent when there was none (a timeout). */
      readonly failureLocation?: string;
      readonly contentType?: string;
    };

export interface NotificationContext {
  readonly region: string;
  readonly finishedAtEpochMs: number;
}

export function notificationMessage(
  request: NotificationRequest,
  outcome: NotificationOutcome,
  context: NotificationContext,
): string {
  const common = {
    awsRegion: context.region,
    eventTime: new Date(context.finishedAtEpochMs).toISOString(),
    receivedTime: new Date(request.receivedAtEpochMs).toISOString(),
  };
  const requestParameters = {
    contentType: request.contentType,
    endpointName: request.endpointName,
    inputLocation: request.inputLocation,
  };
  const trailer = {
    inferenceId: request.inferenceId,
    eventVersion: '1.0',
    eventSource: 'aws:sagemaker',
    eventName: 'InferenceResult',
  };
  if (outcome.status === 'completed') {
    return JSON.stringify({
      ...common,
      invocationStatus: InvocationStatuses.completed,
      requestParameters,
      responseParameters: { contentType: outcome.contentType, outputLocation: outcome.outputLocation },
      ...trailer,
    });
  }
  return JSON.stringify({
    ...common,
    invocationStatus: InvocationStatuses.failed,
    failureReason: outcome.failureReason,
    requestParameters,
    ...(outcome.failureLocation === undefined
      ? {}
      : {
          responseParameters: {
            ...(outcome.contentType === undefined ? {} : { contentType: outcome.contentType }),
            failureLocation: outcome.failureLocation,
          },
        }),
    ...trailer,
  });
}
