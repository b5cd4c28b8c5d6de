import { z } from 'zod';
import {
  environmentSchema,
  type FieldIssue,
  frameworkFieldIssues,
  frameworkVersionSchema,
  hubModelSchema,
  imageUriSchema,
  instanceTypeSchema,
  objectUriSchema,
} from './run-input.js';
import { GENERATIVE_OUTPUT_FORMATS } from './async-state.js';
import { FRAMEWORKS } from './model-frameworks.js';

/**
 * The run input of the async-inference workflow: one schema, used by its first state, the API and
 * the CLI. Errors name the field, what was given and what was expected (`parseOrThrow`). The rules
 * that consult the catalog are core/planning's (async-run-input-check.ts), which adds them to this
 * schema (`asyncRunInputSchemaWith`).
 *
 * The endpoint is either reused (`endpointName`: an async endpoint that publishes to this stack's
 * notification topics) or deployed for the run (`endpoint`: model, instance type, autoscaling from
 * zero), and deleted afterwards unless `endpoint.keepAfterRun`.
 */

export const ASYNC_RUN_LIMITS = {
  /**
   * Each input is one iteration of an inline Map, about ten history events (iteration, task
   * scheduled/started/submitted/succeeded, result state), plus a few per batch of 40, and about four
   * more for each throttled attempt of its wait, which its Retry repeats up to 5 times: thirty at
   * worst. A Standard execution stops at 25,000 events (Step Functions quotas), which a full
   * history fails uncaught: 700 inputs, each throttled to the end of its Retry, still fit the
   * budget with a deployed endpoint's and a benchmark's polls at their shortest ("Validate async run" counts the
   * plan's worst case, core/planning/history-model.ts `asyncHistoryEvents`).
   */
  maxInputs: 700,
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
const asyncEndpointBaseSchema = z.strictObject({
  /**
   * A packaged `model.tar.gz` (e.g. the one an optimization run wrote under runs/<runId>/model/).
   * Inference code goes inside it, as `code/inference.py` (with `code/requirements.txt` if needed):
   * where the SageMaker PyTorch and Hugging Face inference containers look for it. Exactly one of
   * this and `hub`.
   */
  modelDataUrl: objectUriSchema.optional(),
  /** `huggingface` only: a model on the Hugging Face Hub (the optimization run's `model.hub`). */
  hub: hubModelSchema.optional(),
  /**
   * `hub` only: inference code, a `.tar.gz` of a folder with `inference.py` (or one `.py` file),
   * packaged alone under `code/` into the run's own model.tar.gz (see `asyncEndpointSourceIssues`).
   */
  codeUri: objectUriSchema.optional(),
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
});

export const asyncEndpointSchema = asyncEndpointBaseSchema.superRefine((endpoint, context) => {
  for (const { path, message, given } of [
    ...asyncEndpointSourceIssues(endpoint),
    ...frameworkFieldIssues(endpoint),
  ]) {
    context.addIssue({ code: 'custom', path, message, input: given });
  }
});

type EndpointSource = Pick<
  z.output<typeof asyncEndpointBaseSchema>,
  'framework' | 'modelDataUrl' | 'hub' | 'codeUri' | 'environment'
>;

/**
 * Where the async endpoint's model and code come from: `modelDataUrl` or (Hugging Face only) `hub`,
 * never both. No credential in its environment: `environmentSchema` refuses it (contracts/credentials.ts).
 *
 * `codeUri` goes with `hub` only, and is packaged, not passed as `SAGEMAKER_SUBMIT_DIRECTORY`: the
 * PyTorch and Hugging Face inference containers import the user module (`SAGEMAKER_PROGRAM`,
 * default `inference.py`) from `/opt/ml/model/code` only, the model data's `code/`, and never read
 * `SAGEMAKER_SUBMIT_DIRECTORY` (aws/sagemaker-inference-toolkit environment.py and parameters.py,
 * aws/sagemaker-pytorch-inference-toolkit torchserve.py, aws/sagemaker-huggingface-inference-toolkit
 * handler_service.py and mms_model_server.py); the SageMaker Python SDK repacks code into
 * model.tar.gz for these images, and sets an S3 `SAGEMAKER_SUBMIT_DIRECTORY` only for legacy ones
 * (src/sagemaker/model.py, `_script_mode_env_vars`). With `modelDataUrl`, code goes inside that archive.
 */
function asyncEndpointSourceIssues(endpoint: EndpointSource): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (endpoint.hub !== undefined && endpoint.framework !== 'huggingface') {
    issues.push({
      path: ['hub'],
      message: `no hub for ${endpoint.framework}: it is a field of framework "huggingface" endpoints only`,
      given: endpoint.hub,
    });
  } else if (endpoint.hub !== undefined && endpoint.modelDataUrl !== undefined) {
    issues.push({
      path: ['modelDataUrl'],
      message: 'either hub (the DLC downloads the model) or modelDataUrl (your model.tar.gz), not both',
      given: endpoint.modelDataUrl,
    });
  } else if (endpoint.hub === undefined && endpoint.modelDataUrl === undefined) {
    issues.push({
      path: ['modelDataUrl'],
      message:
        endpoint.framework === 'huggingface'
          ? 'a model.tar.gz (an s3:// URI), or hub: a Hub model { "modelId": "owner/name" }'
          : 'the model.tar.gz to deploy (an s3:// URI)',
      given: undefined,
    });
  }
  if (endpoint.codeUri !== undefined && !/\.(py|tar\.gz|tgz)$/.test(endpoint.codeUri)) {
    issues.push({
      path: ['codeUri'],
      message:
        'a .tar.gz of a code folder with inference.py (e.g. tar -czf code.tar.gz -C code .), or one .py file',
      given: endpoint.codeUri,
    });
  } else if (endpoint.codeUri !== undefined && endpoint.hub === undefined) {
    issues.push({
      path: ['codeUri'],
      message:
        'no codeUri with modelDataUrl: put the code inside the model.tar.gz as code/inference.py (the PyTorch ' +
        "and Hugging Face inference containers read code only from the model data's code/ folder); codeUri is for hub models",
      given: endpoint.codeUri,
    });
  }
  return issues;
}

export const asyncRunInputSchema = z
  .strictObject({
    /** The JSON Schema an editor checks the file against (schemas/); the run ignores it. */
    $schema: z.string().max(2048).optional(),
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
    /**
     * A generative model: each result is read in its container's answer format and its tokens
     * counted from the container's own figures, so the summary gives tokens per input and per
     * second. The results must be in this stack's artifacts bucket, under `runs/` (an endpoint the
     * run deploys writes there).
     */
    generative: z
      .strictObject({
        format: z.enum(GENERATIVE_OUTPUT_FORMATS, {
          message: `one of ${GENERATIVE_OUTPUT_FORMATS.join(', ')}: the container's answer format (TGI, LMI (DJL Serving), or an OpenAI-compatible completion)`,
        }),
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

/** A rule of the endpoint to deploy: every issue it finds, paths relative to `endpoint`. */
export type AsyncEndpointRule = (endpoint: AsyncEndpointInput) => FieldIssue[];

/**
 * `asyncRunInputSchema` with more rules of the endpoint to deploy, each run after the endpoint's own,
 * so that one parse reports every issue of all of them. core/planning/async-run-input-check.ts adds
 * the rules that consult the catalog; every entry that refuses what the first state refuses parses
 * with its schema.
 */
export function asyncRunInputSchemaWith(...rules: readonly AsyncEndpointRule[]): typeof asyncRunInputSchema {
  const endpoint = asyncEndpointSchema.superRefine((fields, context) => {
    for (const rule of rules) {
      for (const { path, message, given } of rule(fields)) {
        context.addIssue({ code: 'custom', path, message, input: given });
      }
    }
  });
  return asyncRunInputSchema.safeExtend({ endpoint: endpoint.optional() });
}
