import { z } from 'zod';
import {
  environmentSchema,
  FRAMEWORKS,
  frameworkFieldIssues,
  frameworkVersionSchema,
  imageUriSchema,
  instanceTypeSchema,
  objectUriSchema,
} from '../contracts/run-input.js';
import { parseOrThrow } from '../contracts/validation.js';

/**
 * The run input of the async-inference workflow: one schema, used by its first state, the API and
 * the CLI. Errors name the field, what was given and what was expected (`parseOrThrow`).
 *
 * The endpoint is either reused (`endpointName`: an async endpoint that publishes to this stack's
 * notification topics) or deployed for the run (`endpoint`: model, instance type, autoscaling from
 * zero), and deleted afterwards unless `endpoint.keepAfterRun`.
 */

export const ASYNC_RUN_LIMITS = {
  /**
   * Each input is one iteration of an inline Map, about ten history events (iteration, task
   * scheduled/started/submitted/succeeded, result state), plus a few per batch of 40. A Standard
   * execution stops at 25,000 events (Step Functions quotas), so 1,000 inputs keep a run under half.
   */
  maxInputs: 1000,
  /**
   * Inputs in flight at once: an inline Map runs at most 40 iterations concurrently (Step
   * Functions, "Map state in Inline mode"); the workflow nests a Map of batches around the Map of
   * inputs, so up to 40 batches of 40 can wait at once.
   */
  maxConcurrency: 1000,
  /** `InvocationTimeoutSeconds`: 1–3600 s of processing (SageMaker InvokeEndpointAsync reference). */
  maxInvocationTimeoutSeconds: 3600,
  /** `RequestTTLSeconds`: 60–21,600 s in the queue (SageMaker InvokeEndpointAsync reference). */
  minRequestTtlSeconds: 60,
  maxRequestTtlSeconds: 21_600,
  /** Endpoints the project deploys scale out to at most this many instances. */
  maxInstanceCount: 10,
  /** `ClientConfig.MaxConcurrentInvocationsPerInstance`: 1–1000 (SageMaker AsyncInferenceClientConfig). */
  maxConcurrentInvocationsPerInstance: 1000,
} as const;

export const ASYNC_RUN_DEFAULTS = {
  contentType: 'application/json',
  maxConcurrency: 10,
  /** SageMaker's own default when `InvocationTimeoutSeconds` is absent: 15 minutes. */
  invocationTimeoutSeconds: 900,
  /** SageMaker's own default queue TTL: 6 hours. */
  requestTtlSeconds: 21_600,
  maxInstanceCount: 1,
  /** The value of AWS's async-inference autoscaling example. */
  targetBacklogPerInstance: 5,
} as const;

const s3Pattern = '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]';

/** S3 in AWS, `file:///` in local mode (the local async endpoint reads files). */
const inputUri = z.string().regex(new RegExp(`^(s3://${s3Pattern}/.*[^/]|file:///.*[^/])$`), {
  message: 'an object URI such as s3://my-bucket/inputs/0001.json (file:///… only in local mode)',
});

const prefixUri = z.string().regex(new RegExp(`^(s3://${s3Pattern}/(.*/)?|file:///(.*/)?)$`), {
  message: 'a prefix URI ending with "/", such as s3://my-bucket/inputs/',
});

/** A SageMaker endpoint name (CreateEndpoint `EndpointName`). */
const endpointNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/, { message: 'a SageMaker endpoint name' });

/** An async endpoint deployed for the run, scaling between zero and `maxInstanceCount`. */
export const asyncEndpointSchema = z
  .strictObject({
    /**
     * A packaged `model.tar.gz` (e.g. the one an optimization run wrote under runs/<runId>/model/).
     * Inference code goes inside it, as `code/inference.py` (with `code/requirements.txt` if needed):
     * where the SageMaker PyTorch and Hugging Face inference containers look for it.
     */
    modelDataUrl: objectUriSchema,
    framework: z.enum(FRAMEWORKS),
    /** The framework's version; for `huggingface`, the transformers version. */
    frameworkVersion: frameworkVersionSchema.optional(),
    /** `huggingface` only: the PyTorch under transformers (one of this and `tensorflowVersion`). */
    pytorchVersion: frameworkVersionSchema.optional(),
    /** `huggingface` only: the TensorFlow under transformers. */
    tensorflowVersion: frameworkVersionSchema.optional(),
    /** An explicit serving image; otherwise the image is chosen from the maintained table. */
    image: imageUriSchema.optional(),
    instanceType: instanceTypeSchema,
    maxInstanceCount: z
      .int()
      .min(1)
      .max(ASYNC_RUN_LIMITS.maxInstanceCount)
      .default(ASYNC_RUN_DEFAULTS.maxInstanceCount),
    /** SageMaker picks a value when absent. */
    maxConcurrentInvocationsPerInstance: z
      .int()
      .min(1)
      .max(ASYNC_RUN_LIMITS.maxConcurrentInvocationsPerInstance)
      .optional(),
    /** Target of `ApproximateBacklogSizePerInstance` for scaling out and in. */
    targetBacklogPerInstance: z
      .number()
      .positive()
      .max(1000)
      .default(ASYNC_RUN_DEFAULTS.targetBacklogPerInstance),
    environment: environmentSchema,
    /** Leave the endpoint (scaled to zero) after the run, tagged so the janitor keeps it. */
    keepAfterRun: z.boolean().default(false),
  })
  .superRefine((endpoint, context) => {
    for (const { path, message, given } of frameworkFieldIssues(endpoint)) {
      context.addIssue({ code: 'custom', path, message, input: given });
    }
  });

export const asyncRunInputSchema = z
  .strictObject({
    /** A label for the summary; the run id itself is the execution name. */
    name: z.string().max(200).optional(),
    /** Exactly one of `endpointName` (reuse) and `endpoint` (deploy for the run). */
    endpointName: endpointNameSchema.optional(),
    endpoint: asyncEndpointSchema.optional(),
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
    /** Inputs waiting for their result at once (queued or processing). */
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
    /** How long a request may wait in SageMaker's queue before it expires (a failure). */
    requestTtlSeconds: z
      .int()
      .min(ASYNC_RUN_LIMITS.minRequestTtlSeconds)
      .max(ASYNC_RUN_LIMITS.maxRequestTtlSeconds)
      .default(ASYNC_RUN_DEFAULTS.requestTtlSeconds),
    /**
     * Benchmark mode: send `burstSize` requests at once (cycling through the inputs) and report
     * time in backlog, drain rate and the delay to scale out from zero. `maxConcurrency` is then
     * the burst size.
     */
    benchmark: z
      .strictObject({
        burstSize: z.int().min(1).max(ASYNC_RUN_LIMITS.maxInputs),
      })
      .optional(),
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
    if ((input.endpointName === undefined) === (input.endpoint === undefined)) {
      context.addIssue({
        code: 'custom',
        path: input.endpointName === undefined ? ['endpointName'] : ['endpoint'],
        input: input.endpointName === undefined ? undefined : input.endpoint,
        message:
          'exactly one of `endpointName` (an existing async endpoint) and `endpoint` (one to deploy for the run)',
      });
    }
  });

export type AsyncRunInput = z.output<typeof asyncRunInputSchema>;
export type AsyncRunInputDocument = z.input<typeof asyncRunInputSchema>;
export type AsyncEndpointInput = z.output<typeof asyncEndpointSchema>;

/** Parses an async run input, or throws `InvalidRunInputError` naming every bad field. */
export function parseAsyncRunInput(data: unknown): AsyncRunInput {
  return parseOrThrow(asyncRunInputSchema, data);
}
