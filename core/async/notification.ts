import { z } from 'zod';
import { redactText } from '../contracts/index.js';

/**
 * SageMaker's asynchronous inference notification: the JSON document SageMaker publishes to the
 * endpoint's SNS success or error topic, which SNS hands to the Lambda as `Sns.Message`.
 * Shape (SageMaker Developer Guide, "Check prediction results"):
 *
 *   { "awsRegion", "eventTime", "receivedTime", "invocationStatus": "Completed" | "Failed",
 *     "failureReason" (on failure), "requestParameters": { "endpointName", "inputLocation", … },
 *     "responseParameters": { "contentType", "outputLocation" } (on success), "inferenceId",
 *     "eventVersion": "1.0", "eventSource": "aws:sagemaker", "eventName": "InferenceResult" }
 *
 * With an `S3FailurePath`, a failure also names where the model's error response was written
 * (`failureLocation`, seen both at the top level and under `responseParameters`). The schema is
 * not strict: SageMaker may add fields (e.g. `inferenceResponse` with `IncludeInferenceResponseIn`).
 */

export const InvocationStatuses = { completed: 'Completed', failed: 'Failed' } as const;

/**
 * `InferenceId` as InvokeEndpointAsync accepts it: 1–64 characters, pattern `\A\S[\p{Print}]*\z`
 * (SageMaker Runtime API model, aws/api-models-aws; API reference,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointAsync.html).
 * Java reads `\p{Print}` as printable US-ASCII. A notification naming any other id answers no
 * invocation SageMaker accepted, so no task of ours waits for it.
 */
export const INFERENCE_ID_LIMITS = { maxLength: 64, pattern: /^\S[\x20-\x7E]*$/u } as const;

/** Why SageMaker would never have assigned `inferenceId`, or undefined when it could have. */
export function inferenceIdProblem(inferenceId: string): string | undefined {
  if (inferenceId.length > INFERENCE_ID_LIMITS.maxLength) {
    return `inferenceId has ${inferenceId.length} characters, expected at most ${INFERENCE_ID_LIMITS.maxLength} (InvokeEndpointAsync's InferenceId)`;
  }
  if (!INFERENCE_ID_LIMITS.pattern.test(inferenceId)) {
    return `inferenceId ${JSON.stringify(inferenceId)} is not InvokeEndpointAsync's InferenceId: expected printable ASCII characters, the first not a space`;
  }
  return undefined;
}

const timestamp = z.iso.datetime({ offset: true });

export const sageMakerNotificationSchema = z.object({
  awsRegion: z.string().optional(),
  /** When SageMaker finished the request (result or failure). */
  eventTime: timestamp.optional(),
  /** When SageMaker accepted the request into its queue. */
  receivedTime: timestamp.optional(),
  invocationStatus: z.string().min(1),
  failureReason: z.string().optional(),
  failureLocation: z.string().min(1).optional(),
  requestParameters: z
    .object({
      endpointName: z.string().optional(),
      inputLocation: z.string().optional(),
      contentType: z.string().optional(),
      accept: z.string().optional(),
    })
    .optional(),
  responseParameters: z
    .object({
      contentType: z.string().optional(),
      outputLocation: z.string().min(1).optional(),
      failureLocation: z.string().min(1).optional(),
    })
    .optional(),
  inferenceId: z.string().min(1),
  eventVersion: z.string().optional(),
  eventSource: z.literal('aws:sagemaker').optional(),
  eventName: z.string().optional(),
});

export type SageMakerNotification = z.output<typeof sageMakerNotificationSchema>;

interface NotificationBase {
  readonly inferenceId: string;
  readonly endpointName?: string;
  readonly inputLocation?: string;
  readonly receivedAtEpochMs?: number;
  readonly finishedAtEpochMs?: number;
}

export interface CompletedNotification extends NotificationBase {
  readonly outcome: 'completed';
  readonly outputLocation: string;
}

/** `Failed`, or any status other than `Completed` (treated as a failure). */
export interface FailedNotification extends NotificationBase {
  readonly outcome: 'failed';
  readonly invocationStatus: string;
  readonly failureReason: string;
  readonly failureLocation?: string;
}

export type InferenceNotification = CompletedNotification | FailedNotification;

/**
 * `malformed`: nothing usable. `inferenceId` is set when the id could still be read, so the
 * waiting task can be failed instead of left to time out.
 */
export type ParsedNotification =
  | { readonly kind: 'notification'; readonly notification: InferenceNotification }
  | { readonly kind: 'malformed'; readonly problem: string; readonly inferenceId?: string };

/** Parses one SNS message. Never throws: a malformed message is a result, not an exception. */
export function parseNotification(message: string): ParsedNotification {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { kind: 'malformed', problem: `not JSON (${message.length} characters)` };
  }
  const parsed = sageMakerNotificationSchema.safeParse(json);
  if (!parsed.success) {
    const problem = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || '(message)'}: ${issue.message}`)
      .join('; ');
    return { kind: 'malformed', problem, ...readableId(json) };
  }
  return toNotification(parsed.data);
}

function readableId(json: unknown): { inferenceId?: string } {
  if (typeof json !== 'object' || json === null || !('inferenceId' in json)) return {};
  const id = json.inferenceId;
  return typeof id === 'string' && id !== '' ? { inferenceId: id } : {};
}

function toNotification(message: SageMakerNotification): ParsedNotification {
  const base: NotificationBase = {
    inferenceId: message.inferenceId,
    ...optional('endpointName', message.requestParameters?.endpointName),
    ...optional('inputLocation', message.requestParameters?.inputLocation),
    ...optional('receivedAtEpochMs', epochMs(message.receivedTime)),
    ...optional('finishedAtEpochMs', epochMs(message.eventTime)),
  };
  if (message.invocationStatus === InvocationStatuses.completed) {
    const outputLocation = message.responseParameters?.outputLocation;
    if (outputLocation === undefined) {
      return {
        kind: 'malformed',
        problem: 'invocationStatus is Completed but responseParameters.outputLocation is missing',
        inferenceId: message.inferenceId,
      };
    }
    return { kind: 'notification', notification: { ...base, outcome: 'completed', outputLocation } };
  }
  const failureReason =
    message.invocationStatus === InvocationStatuses.failed
      ? (message.failureReason ?? 'SageMaker reported the inference as Failed without a reason')
      : `Unexpected invocationStatus ${JSON.stringify(message.invocationStatus)}, expected Completed or Failed${
          message.failureReason === undefined ? '' : `: ${message.failureReason}`
        }`;
  return {
    kind: 'notification',
    notification: {
      ...base,
      outcome: 'failed',
      invocationStatus: message.invocationStatus,
      // The model's error may quote its environment: the reason reaches the state and the summary.
      failureReason: redactText(failureReason),
      ...optional('failureLocation', message.failureLocation ?? message.responseParameters?.failureLocation),
    },
  };
}

function epochMs(isoTime: string | undefined): number | undefined {
  return isoTime === undefined ? undefined : Date.parse(isoTime);
}

/** `{ key: value }`, or nothing when the value is undefined (exactOptionalPropertyTypes-friendly). */
function optional<Key extends string, Value>(key: Key, value: Value | undefined): { [K in Key]?: Value } {
  return value === undefined ? {} : ({ [key]: value } as { [K in Key]?: Value });
}
