import { z } from 'zod';
import { parseOrThrow } from '../contracts/validation.js';

/**
 * The run input of the async-inference workflow: one schema, used by its first state, the API and
 * the CLI. Errors name the field, what was given and what was expected (`parseOrThrow`).
 *
 * For now the workflow reuses an existing async endpoint (`endpointName`); deploying one from a
 * spec comes with the workflow construct, and will be a second, mutually exclusive field.
 */

export const ASYNC_RUN_LIMITS = {
  /**
   * Each input is one iteration of an inline Map, about a dozen history events (iteration, task
   * scheduled/started/submitted/succeeded, result state). A Standard execution stops at 25,000
   * events (Step Functions quotas), so 1,000 inputs keep a run at half of it.
   */
  maxInputs: 1000,
  /** An inline Map runs at most 40 iterations at once (Step Functions, "Map state in Inline mode"). */
  maxConcurrency: 40,
  /** `InvocationTimeoutSeconds`: 1–3600 s of processing (SageMaker InvokeEndpointAsync reference). */
  maxInvocationTimeoutSeconds: 3600,
  /**
   * A request may also wait in SageMaker's queue up to `RequestTTLSeconds`, 6 h by default
   * (InvokeEndpointAsync reference); with an hour of processing, 7 h covers the worst case. A
   * day is the ceiling: past it, the input is better split into several runs.
   */
  maxWaitTimeoutSeconds: 86_400,
} as const;

export const ASYNC_RUN_DEFAULTS = {
  contentType: 'application/json',
  maxConcurrency: 10,
  /** SageMaker's own default when `InvocationTimeoutSeconds` is absent: 15 minutes. */
  invocationTimeoutSeconds: 900,
  /** SageMaker's default queue TTL (6 h) plus the default invocation timeout (15 min). */
  waitTimeoutSeconds: 21_600 + 900,
} as const;

const s3Pattern = '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]';

/** S3 in AWS, `file:///` in local mode (the local async endpoint reads files). */
const inputUri = z.string().regex(new RegExp(`^(s3://${s3Pattern}/.*[^/]|file:///.*[^/])$`), {
  message: 'an object URI such as s3://my-bucket/inputs/0001.json (file:///… only in local mode)',
});

const prefixUri = z.string().regex(new RegExp(`^(s3://${s3Pattern}/(.*/)?|file:///(.*/)?)$`), {
  message: 'a prefix URI ending with "/", such as s3://my-bucket/inputs/',
});

export const asyncRunInputSchema = z
  .strictObject({
    /** A label for the summary; the run id itself is the execution name. */
    name: z.string().max(200).optional(),
    endpointName: z
      .string()
      .regex(/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/, { message: 'a SageMaker endpoint name' }),
    /** Exactly one of `inputs` and `inputPrefix`. */
    inputs: z
      .array(inputUri)
      .min(1)
      .max(ASYNC_RUN_LIMITS.maxInputs, {
        message: `at most ${ASYNC_RUN_LIMITS.maxInputs} inputs (split larger batches into several runs)`,
      })
      .optional(),
    /** Every object under it is an input, up to `maxInputs`. */
    inputPrefix: prefixUri.optional(),
    /** The MIME type SageMaker passes to the model (`ContentType`). */
    contentType: z.string().min(1).max(1024).default(ASYNC_RUN_DEFAULTS.contentType),
    maxConcurrency: z
      .int()
      .min(1)
      .max(ASYNC_RUN_LIMITS.maxConcurrency)
      .default(ASYNC_RUN_DEFAULTS.maxConcurrency),
    invocationTimeoutSeconds: z
      .int()
      .min(1)
      .max(ASYNC_RUN_LIMITS.maxInvocationTimeoutSeconds)
      .default(ASYNC_RUN_DEFAULTS.invocationTimeoutSeconds),
    /** The wait task's `TimeoutSeconds`: queue time plus processing, for one input. */
    waitTimeoutSeconds: z
      .int()
      .min(60)
      .max(ASYNC_RUN_LIMITS.maxWaitTimeoutSeconds)
      .default(ASYNC_RUN_DEFAULTS.waitTimeoutSeconds),
    /**
     * The wait task's `HeartbeatSeconds`. SageMaker sends no heartbeat, so set it only when
     * something calls `SendTaskHeartbeat` for the waiting tasks; otherwise leave it out.
     */
    heartbeatSeconds: z.int().min(1).max(ASYNC_RUN_LIMITS.maxWaitTimeoutSeconds).optional(),
    /** Where the summary is written; by default under the run's prefix in the artifacts bucket. */
    summaryPrefix: prefixUri.optional(),
  })
  .superRefine((input, context) => {
    if ((input.inputs === undefined) === (input.inputPrefix === undefined)) {
      context.addIssue({
        code: 'custom',
        path: input.inputs === undefined ? ['inputs'] : ['inputPrefix'],
        input: input.inputs === undefined ? undefined : input.inputPrefix,
        message: 'exactly one of `inputs` (a list of URIs) and `inputPrefix` (a prefix URI)',
      });
    }
    if (input.waitTimeoutSeconds <= input.invocationTimeoutSeconds) {
      context.addIssue({
        code: 'custom',
        path: ['waitTimeoutSeconds'],
        input: input.waitTimeoutSeconds,
        message: `more than invocationTimeoutSeconds (${input.invocationTimeoutSeconds}): the wait must outlast SageMaker's processing`,
      });
    }
    if (input.heartbeatSeconds !== undefined && input.heartbeatSeconds >= input.waitTimeoutSeconds) {
      context.addIssue({
        code: 'custom',
        path: ['heartbeatSeconds'],
        input: input.heartbeatSeconds,
        message: `less than waitTimeoutSeconds (${input.waitTimeoutSeconds})`,
      });
    }
  });

export type AsyncRunInput = z.output<typeof asyncRunInputSchema>;

/** Parses an async run input, or throws `InvalidRunInputError` naming every bad field. */
export function parseAsyncRunInput(data: unknown): AsyncRunInput {
  return parseOrThrow(asyncRunInputSchema, data);
}
