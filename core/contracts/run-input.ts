import { z } from 'zod';
import { OPTIMIZATION_RUN_TIMEOUT_SECONDS } from './run-timeouts.js';
import { COMPILATION_TARGETS } from './compilation-targets.js';
import {
  availabilitySchema,
  proveSchema,
  rampTestSchema,
  scalingSchema,
  servingInputIssues,
} from './serving-input.js';
import { refuseCredentials } from './credentials.js';
import { modelPackageSchema } from './model-package.js';
import { modelSizeSchema } from './model-size.js';
import { MAX_OPTIMIZATIONS, optimizationIssues, optimizationSchema } from './optimization-input.js';
import {
  promptBucketIssues,
  promptFormatIssues,
  promptFormatOf,
  promptGenerationIssues,
  promptSetFields,
} from './prompt-set.js';
import { type ShortlistRequest, shortlistRequestSchema } from './shortlist.js';
import { userTagsSchema } from './tags.js';
import { containerStreamFormat, STREAM_FORMATS } from './stream-format.js';
import { FRAMEWORKS, INPUT_DATA_TYPES, isLlmContainer } from './model-frameworks.js';
import { RoutingStrategies } from './routing-strategy.js';
import { loadPlanSchema } from './load-plan.js';
import { slaSchema, streamingSlaIssues } from './latency-sla.js';
import { qualityIssues, qualitySchema } from './quality.js';
import { COMPILER_OPTIONS_LENGTH, compilerOptionsIssues } from './compiler-options.js';
import { quantizationIssues, quantizationSchema } from './quantization.js';

/**
 * The run input of the optimization workflow: one schema, used by the first state ("Validate and
 * plan"), the API's request model and the local CLI. Defaults make a minimal input short; every
 * cross-field rule reports the field, what was given and what was expected. The rules that consult
 * the catalog (instance types, images, Neo and container support) are core/planning's
 * (run-input-check.ts), which adds them to this schema (`runInputSchemaWith`).
 */

/**
 * The optimization state machine's execution timeout (core/contracts/run-timeouts.ts): the one
 * number that the workflow's timeout and every run-input bound on time derive from.
 */
export { OPTIMIZATION_RUN_TIMEOUT_SECONDS };

/** Bounds that keep a run's cost and its state-machine history in check. */
export const RUN_LIMITS = {
  /**
   * Neo's `StoppingCondition.MaxRuntimeInSeconds` of each job. The jobs run side by side, but a
   * job may take all of it (plus the check loop's deadline margin) before the first candidate is
   * deployed: half the run leaves the other half for packaging, benchmarking and clean-up.
   */
  maxCompilationRuntimeSeconds: OPTIMIZATION_RUN_TIMEOUT_SECONDS / 2,
  /** After expanding environment ranges. Inference Recommender caps a job at 10 instance types. */
  maxCandidates: 50,
  maxValuesPerEnvironmentRange: 10,
  maxInstanceCountPerCandidate: 10,
  maxConcurrentCandidates: 10,
  /**
   * Load workers start together from a shared time, so all must run at once: an inline Map runs
   * at most 40 iterations concurrently (Step Functions, "Map state in Inline mode").
   */
  maxLoadWorkers: 40,
  /**
   * Payloads in a run's mix (`payloads`). Each load worker holds every payload in memory for the
   * whole test (2,048 MB, infra/constructs/optimization-steps.ts), and the plan carries the list in
   * every state: 50 payloads of SageMaker's 6 MB body limit are 300 MB, and 50 entries with long
   * URIs stay a small share of a state's 256 KiB.
   */
  maxPayloads: 50,
} as const;

export const objectUriSchema = z
  .string()
  .regex(/^(s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/.+|file:\/\/\/.+)$/, {
    message: 'an S3 URI such as s3://my-bucket/models/model.tar.gz (file:///… only in local mode)',
  });

/**
 * `InvokeEndpoint`'s `Body` is at most 6,291,456 bytes (SageMaker Runtime API reference,
 * InvokeEndpoint, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html).
 */
export const INVOKE_ENDPOINT_MAX_BODY_BYTES = 6 * 1024 * 1024;

/**
 * Upper bounds that arithmetic gives the numbers of a run input, each said in its refusal:
 * - a payload weight: weights are relative, so a million to one is already a mix that sends one
 *   request in a million to the lighter payload; a bound also keeps the sum of up to
 *   `RUN_LIMITS.maxPayloads` weights a finite number (weights of 1.7e308 each add up to Infinity);
 * - a price per hour: 1,000 USD, above the on-demand price of any SageMaker instance type, so the
 *   cost per million inferences stays a finite number (a price of 1e308 printed $Infinity);
 * - the elements of one input shape: each element takes at least one byte of a request body, and
 *   `InvokeEndpoint` takes at most `INVOKE_ENDPOINT_MAX_BODY_BYTES`.
 */
export const NUMBER_BOUNDS = {
  maxPayloadWeight: 1_000_000,
  maxUsdPerHour: 1_000,
  maxInputElements: INVOKE_ENDPOINT_MAX_BODY_BYTES,
} as const;

/**
 * SageMaker's limits on a container's `Environment` (CreateModel `ContainerDefinition.Environment`:
 * shapes `EnvironmentMap`, `EnvironmentKey` and `EnvironmentValue` in the SageMaker Smithy model,
 * aws/api-models-aws; SageMaker API reference, ContainerDefinition,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ContainerDefinition.html).
 */
export const SAGEMAKER_ENVIRONMENT_LIMITS = {
  /** `EnvironmentMap`: 0–100 entries. */
  maxEntries: 100,
  /** `EnvironmentKey` pattern: `^[a-zA-Z_][a-zA-Z0-9_]*$`. */
  keyPattern: /^[a-zA-Z_][a-zA-Z0-9_]*$/,
  /** "The maximum length of each key and value in the Environment map is 1024 bytes." */
  maxKeyBytes: 1024,
  maxValueBytes: 1024,
  /** "The maximum length of all keys and values in the map, combined, is 32 KB." */
  maxTotalBytes: 32 * 1024,
} as const;

const ENVIRONMENT_KEY_RULE = `SageMaker's EnvironmentKey pattern ${SAGEMAKER_ENVIRONMENT_LIMITS.keyPattern.source}`;

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The first character of `name` SageMaker's key pattern refuses: its UTF-16 index and its text. */
function firstRefusedCharacter(
  name: string,
): { index: number; position: number; character: string } | undefined {
  let index = 0;
  let position = 1;
  for (const character of name) {
    const allowed = index === 0 ? /^[A-Za-z_]$/ : /^[A-Za-z0-9_]$/;
    if (!allowed.test(character)) return { index, position, character };
    index += character.length;
    position += 1;
  }
  return undefined;
}

/**
 * An environment variable name: SageMaker's pattern and byte limit, each failure saying which
 * character is refused and where (`params.at` lets the error show the name around it).
 */
export const environmentKeySchema = z
  .string()
  .meta({ pattern: SAGEMAKER_ENVIRONMENT_LIMITS.keyPattern.source })
  .superRefine((name, context) => {
    if (name === '') {
      context.addIssue({
        code: 'custom',
        input: name,
        message: `a name of at least one character (${ENVIRONMENT_KEY_RULE})`,
      });
      return;
    }
    const refused = firstRefusedCharacter(name);
    if (refused !== undefined) {
      const what =
        refused.index === 0
          ? 'a name starting with an ASCII letter or "_"'
          : 'a name of ASCII letters, digits and "_" only';
      context.addIssue({
        code: 'custom',
        input: name,
        params: { at: refused.index },
        message: `${what} (${ENVIRONMENT_KEY_RULE}): ${JSON.stringify(refused.character)} at character ${refused.position} is refused`,
      });
    }
    const bytes = utf8Bytes(name);
    if (bytes > SAGEMAKER_ENVIRONMENT_LIMITS.maxKeyBytes) {
      context.addIssue({
        code: 'custom',
        input: name,
        message: `a name of at most ${SAGEMAKER_ENVIRONMENT_LIMITS.maxKeyBytes} bytes (SageMaker's limit on an Environment key; this one has ${bytes})`,
      });
    }
  });

/** An environment variable value: at most 1024 bytes, counted in UTF-8 as SageMaker counts them. */
export const environmentValueSchema = z
  .string()
  .meta({ maxLength: SAGEMAKER_ENVIRONMENT_LIMITS.maxValueBytes })
  .superRefine((value, context) => {
    const bytes = utf8Bytes(value);
    if (bytes > SAGEMAKER_ENVIRONMENT_LIMITS.maxValueBytes) {
      context.addIssue({
        code: 'custom',
        input: value,
        message: `a value of at most ${SAGEMAKER_ENVIRONMENT_LIMITS.maxValueBytes} bytes in UTF-8 (SageMaker's limit on an Environment value; this one has ${bytes})`,
      });
    }
  });

/** Entries and bytes (names and values, UTF-8) of an environment, as SageMaker counts them. */
export function environmentSize(environment: Readonly<Record<string, string>>): {
  entries: number;
  bytes: number;
} {
  const entries = Object.entries(environment);
  return {
    entries: entries.length,
    bytes: entries.reduce((sum, [name, value]) => sum + utf8Bytes(name) + utf8Bytes(value), 0),
  };
}

/** The expected texts of an environment over SageMaker's whole-map limits, with what it has. */
export function environmentSizeProblems(
  size: { entries: number; bytes: number },
  where: string,
): { kind: 'entries' | 'bytes'; message: string; given: number }[] {
  const problems: { kind: 'entries' | 'bytes'; message: string; given: number }[] = [];
  if (size.entries > SAGEMAKER_ENVIRONMENT_LIMITS.maxEntries) {
    problems.push({
      kind: 'entries',
      given: size.entries,
      message: `at most ${SAGEMAKER_ENVIRONMENT_LIMITS.maxEntries} variables${where} (SageMaker's limit on a container's Environment)`,
    });
  }
  if (size.bytes > SAGEMAKER_ENVIRONMENT_LIMITS.maxTotalBytes) {
    problems.push({
      kind: 'bytes',
      given: size.bytes,
      message: `at most ${SAGEMAKER_ENVIRONMENT_LIMITS.maxTotalBytes} bytes of names and values${where} (SageMaker's 32 KB limit on a container's Environment)`,
    });
  }
  return problems;
}

/** Container environment: SageMaker's names, values and limits (`ContainerDefinition.Environment`). */
export const environmentSchema = z
  .record(environmentKeySchema, environmentValueSchema)
  .meta({ maxProperties: SAGEMAKER_ENVIRONMENT_LIMITS.maxEntries })
  .superRefine((environment, context) => {
    for (const { message, given } of environmentSizeProblems(environmentSize(environment), '')) {
      context.addIssue({ code: 'custom', input: given, message });
    }
    refuseCredentials(environment, context);
  })
  .default({});

/** An ECR image URI, or `local` (the local model server). */
export const imageUriSchema = z
  .string()
  .regex(
    /^(\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/[a-z0-9._/-]+(:[\w.-]+|@sha256:[a-f0-9]{64})|local)$/,
    { message: 'an ECR image URI such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/repo:tag' },
  );

/**
 * At least major.minor: Neo's `InputConfig.FrameworkVersion` is 3–10 characters matching
 * `[0-9]\.[A-Za-z0-9.]+` (SageMaker API reference, InputConfig), so `"2"` is refused here rather than
 * by CreateCompilationJob.
 */
export const frameworkVersionSchema = z
  .string()
  .max(10, { message: 'a version of at most 10 characters, such as 2.0 or 1.13.1' })
  .regex(/^\d+\.\d+(\.\d+)?$/, { message: 'a version with major and minor, such as 2.0 or 1.13.1' });

export const instanceTypeSchema = z
  .string()
  .regex(/^ml\.[a-z0-9-]+\.[a-z0-9]+$/, { message: 'an instance type such as ml.c5.xlarge' });

/**
 * A model on the Hugging Face Hub, which the Hugging Face inference DLC downloads when it starts. Its
 * fields become the container environment the toolkit reads (`HF_MODEL_ID`, `HF_TASK`,
 * `HF_MODEL_REVISION`: aws/sagemaker-huggingface-inference-toolkit, transformers_utils.py
 * @ 24c423ca8562e3d1ec5814b0964f2ad78edbdaa9, and mms_model_server.py). No token field: a private
 * model would need `HF_API_TOKEN` in the environment, which CreateModel, logs and the report would
 * show: a private model goes in `artifactUri` as a model.tar.gz instead.
 */
export const hubModelSchema = z.strictObject({
  /**
   * `owner/name` or `name`: huggingface_hub's `REPO_ID_REGEX` (utils/_validators.py): letters,
   * digits, `_`, `-` and `.`, starting and ending with a letter, digit or `_`; a name of 1–96.
   */
  modelId: z
    .string()
    .regex(/^([A-Za-z0-9_]([\w.-]*[A-Za-z0-9_])?\/)?[A-Za-z0-9_]([\w.-]{0,94}[A-Za-z0-9_])?$/, {
      message: 'a Hugging Face Hub model id such as distilbert/distilbert-base-uncased',
    }),
  /** The pipeline task, e.g. `text-classification`; absent = the toolkit infers it from the Hub. */
  task: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: 'a pipeline task such as text-classification' })
    .optional(),
  /** A branch, tag or commit of the model repository; absent = its default branch. */
  revision: z
    .string()
    .regex(/^[\w./-]{1,255}$/, { message: 'a branch, tag or commit id such as main or a 40-hex commit' })
    .optional(),
});

export type HubModel = z.output<typeof hubModelSchema>;

const modelSchema = z.strictObject({
  /**
   * A raw model file (e.g. `model.onnx`, `model.pt`) or an already packaged `model.tar.gz`. Absent
   * only for a Hugging Face model from the Hub (`hub`).
   */
  artifactUri: objectUriSchema.optional(),
  framework: z.enum(FRAMEWORKS),
  /**
   * The framework's version; for `huggingface`, the transformers version; for an LLM container
   * (`djl-lmi`, `hf-tgi`, `vllm`), the container's version (absent: the newest for each instance).
   */
  frameworkVersion: frameworkVersionSchema.optional(),
  /** `huggingface` and the LLM containers: a model on the Hugging Face Hub, instead of `artifactUri`. */
  hub: hubModelSchema.optional(),
  /** `huggingface` only: the PyTorch under transformers (one of this and `tensorflowVersion`). */
  pytorchVersion: frameworkVersionSchema.optional(),
  /** `huggingface` only: the TensorFlow under transformers. */
  tensorflowVersion: frameworkVersionSchema.optional(),
  /** The image that serves uncompiled candidates; otherwise chosen from the maintained table. */
  image: imageUriSchema.optional(),
  /**
   * The image that serves compiled candidates (a Neo-capable container of your own); otherwise the
   * one the compilation job names (`InferenceImage`), then the table. `image` never serves them.
   */
  compiledImage: imageUriSchema.optional(),
  /** Input name → shape, as Neo's `DataInputConfig` wants it, e.g. `{ "input": [1, 3, 224, 224] }`. */
  inputShape: z
    .record(
      z.string().min(1),
      z
        .array(z.int().positive())
        .min(1)
        .max(8)
        .refine(
          (dimensions) =>
            dimensions.reduce((product, size) => product * size, 1) <= NUMBER_BOUNDS.maxInputElements,
          {
            message:
              `a shape of at most ${NUMBER_BOUNDS.maxInputElements} elements (the product of its dimensions): each element ` +
              "takes at least one byte of a request, and InvokeEndpoint's body is at most 6 MB",
          },
        ),
    )
    .refine((shape) => Object.keys(shape).length > 0, { message: 'at least one input name with its shape' })
    .optional(),
  /** PyTorch only: the inputs' data type for compilation, e.g. `int64` for token ids. @default float32 */
  inputDataType: z.enum(INPUT_DATA_TYPES, { message: `one of ${INPUT_DATA_TYPES.join(', ')}` }).optional(),
  environment: environmentSchema,
  /** Inference code packaged under `code/` in model.tar.gz (a `.tar.gz` of a folder or one `.py` file). */
  inferenceCodeUri: objectUriSchema.optional(),
  /** What the model needs in memory (model-size.ts): checked against every candidate's memory. */
  size: modelSizeSchema.optional(),
});

const payloadSchema = z.strictObject({
  uri: objectUriSchema,
  contentType: z.string().min(1).default('application/json'),
  accept: z.string().min(1).optional(),
});

/**
 * One payload of a mix: each request draws one, with probability weight ÷ the weights' sum. Weights
 * are relative (`1, 3` and `25, 75` are the same mix).
 */
const weightedPayloadSchema = payloadSchema.extend({
  weight: z
    .number()
    .positive({
      message: 'a weight above 0 (weights are relative: 1 and 3 send a quarter and three quarters)',
    })
    .max(NUMBER_BOUNDS.maxPayloadWeight, {
      message:
        `a weight of at most ${NUMBER_BOUNDS.maxPayloadWeight} (weights are relative: a million to one already ` +
        'sends one request in a million to the lighter payload, and the sum of the weights must stay a finite number)',
    })
    .default(1),
});

/** A generative workload: prompts from a JSON Lines file, in place of `payload`/`payloads` (prompt-set.ts). */
const promptSetSchema = z.strictObject({ uri: objectUriSchema, ...promptSetFields });

export const COMPILATION_TARGET_EXPECTED =
  `a compilation target: one of ${COMPILATION_TARGETS.join(', ')} ` +
  '(SageMaker Neo has none for ml.g5 nor ml.t2, which serve uncompiled models only)';

const compilationTargetSchema = z.enum(COMPILATION_TARGETS as [string, ...string[]], {
  message: COMPILATION_TARGET_EXPECTED,
});

const compilationSchema = z
  .strictObject({
    targets: z.array(compilationTargetSchema).max(10).default([]),
    /**
     * Target → its `OutputConfig.CompilerOptions`: for ml_inf1 and ml_inf2, the Neuron compiler's
     * precision flags (compiler-options.ts), e.g. `{ "ml_inf2": "--auto-cast all --auto-cast-type fp16" }`.
     */
    compilerOptions: z
      .record(
        z.string(),
        z
          .string()
          .min(COMPILER_OPTIONS_LENGTH.min, { message: 'Neuron compiler flags such as "--auto-cast none"' }),
      )
      .optional(),
    /**
     * Target → its int8 quantization, in local mode only (quantization.ts), e.g.
     * `{ "ml_c5": { "type": "int8", "calibrationRange": [-1, 1] } }`.
     */
    quantization: z.record(z.string(), quantizationSchema).optional(),
    /** Neo's `StoppingCondition.MaxRuntimeInSeconds` for each job. */
    maxRuntimeSeconds: z
      .int()
      .min(60)
      .max(RUN_LIMITS.maxCompilationRuntimeSeconds, {
        message:
          `at most ${RUN_LIMITS.maxCompilationRuntimeSeconds} s, half the run's ${OPTIMIZATION_RUN_TIMEOUT_SECONDS} s ` +
          'timeout, so compilation leaves time to benchmark and clean up',
      })
      .default(900),
    /**
     * SageMaker inference optimization jobs for a generative model (optimization-input.ts); each
     * runs with `maxRuntimeSeconds` too, beside the Neo targets.
     */
    optimizations: z
      .array(optimizationSchema)
      .max(MAX_OPTIMIZATIONS, {
        message: `at most ${MAX_OPTIMIZATIONS} optimizations (each is a job billed for its instance)`,
      })
      .default([]),
  })
  .default({ targets: [], maxRuntimeSeconds: 900, optimizations: [] });

const candidateIdSchema = z.string().regex(/^[a-z0-9](-?[a-z0-9]){0,23}$/, {
  message: 'a short kebab-case id (letters, digits, dashes; ≤ 24)',
});

/**
 * The routing strategies a candidate can name. SageMaker's `RoutingStrategy` enum (the
 * `RoutingStrategy` export of @aws-sdk/client-sagemaker, generated from the SageMaker API model)
 * also has `PREFIX_AWARE`, which needs a `PrefixAwareRoutingConfig` (prefix length, concurrency
 * threshold) for requests that share prompt prefixes: not offered until a candidate can carry it.
 * SageMaker API reference, ProductionVariantRoutingConfig:
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantRoutingConfig.html
 */
export const ROUTING_STRATEGIES = [
  RoutingStrategies.random,
  RoutingStrategies.leastOutstandingRequests,
] as const;

const realtimeCandidateSchema = z.strictObject({
  id: candidateIdSchema.optional(),
  instanceType: instanceTypeSchema,
  initialInstanceCount: z.int().min(1).max(RUN_LIMITS.maxInstanceCountPerCandidate).default(1),
  /**
   * The compilation target whose artifact this candidate serves; absent = the uncompiled model.
   * Checked against the instance type in the superRefine below, so that a g5 candidate hears why.
   */
  compiledFor: z.string().min(1).optional(),
  /**
   * The `compilation.optimizations` id whose optimized model this candidate serves, on the instance
   * family the job optimized for; absent = not optimized.
   */
  optimizedBy: z.string().min(1).optional(),
  /**
   * How the endpoint spreads requests over its instances (`RoutingConfig.RoutingStrategy`); absent:
   * SageMaker's random routing. Meaningful from two instances on: this count, or the count the
   * target sizes and the proof deploys.
   */
  routingStrategy: z
    .enum(ROUTING_STRATEGIES, {
      message: `one of ${ROUTING_STRATEGIES.join(', ')} (SageMaker's ProductionVariantRoutingConfig.RoutingStrategy)`,
    })
    .optional(),
  environment: environmentSchema,
});

/**
 * Serverless memory sizes SageMaker accepts: "1 GB increments: 1024 MB, 2048 MB, 3072 MB, 4096 MB,
 * 5120 MB, or 6144 MB" (SageMaker API reference, ProductionVariantServerlessConfig,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantServerlessConfig.html).
 */
export const SERVERLESS_MEMORY_SIZES_MB = [1024, 2048, 3072, 4096, 5120, 6144] as const;

const serverlessCandidateSchema = z.strictObject({
  id: candidateIdSchema.optional(),
  serverless: z.strictObject({
    memorySizeMb: z.union(
      SERVERLESS_MEMORY_SIZES_MB.map((size) => z.literal(size)),
      {
        message:
          `one of ${SERVERLESS_MEMORY_SIZES_MB.join(', ')} MB ` +
          "(SageMaker's ServerlessConfig.MemorySizeInMB: 1 GB steps from 1024 to 6144 MB)",
      },
    ),
    maxConcurrency: z.int().min(1).max(200).default(10),
  }),
  /**
   * Refused by name rather than as an unknown field: a serverless endpoint has no instances to
   * route between, and SageMaker documents RoutingConfig for instance-backed variants only.
   */
  routingStrategy: z
    .never({
      message:
        'no routingStrategy on a serverless candidate: SageMaker routes between the instances of an ' +
        'instance-backed variant only; remove it, or give the candidate an instanceType',
    })
    .optional(),
  environment: environmentSchema,
});

/**
 * The input error reports the branch a candidate means (the one whose field it has, see
 * validation.ts), so this message is read only when it has both fields or neither.
 */
const candidateSchema = z.union([realtimeCandidateSchema, serverlessCandidateSchema], {
  message:
    'a candidate object with exactly one of `instanceType` (a real-time endpoint) and `serverless` (a serverless endpoint)',
});

const existingEndpointSchema = z.strictObject({
  endpointName: z
    .string()
    .regex(/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/, { message: 'a SageMaker endpoint name' }),
  /** A fallback and a cross-check: the endpoint's own type and count (DescribeEndpoint) price the run. */
  instanceType: z.string().optional(),
  instanceCount: z.int().min(1).optional(),
});

export const OBJECTIVES = [
  'lowest-cost-per-1m',
  'lowest-cost-per-1m-output-tokens',
  'highest-tps',
  'lowest-latency',
  'lowest-cost-at-target',
] as const;
export const CLEANUP_POLICIES = ['delete-all', 'keep-recommended'] as const;

export const runInputSchema = z
  .strictObject({
    /** The JSON Schema an editor checks the file against (schemas/); the run ignores it. */
    $schema: z.string().max(2048).optional(),
    /** A label for reports; the run id itself is the execution name. */
    name: z.string().max(200).optional(),
    model: modelSchema.optional(),
    /** The one request body every invocation sends; or `payloads`, a weighted mix. */
    payload: payloadSchema.optional(),
    payloads: z
      .array(weightedPayloadSchema)
      .min(1, { message: 'at least one payload { uri, contentType, weight }' })
      .max(RUN_LIMITS.maxPayloads, {
        message: `at most ${RUN_LIMITS.maxPayloads} payloads (every load worker holds them all in memory)`,
      })
      .optional(),
    /** Prompts from a JSON Lines file, each request's body built by the container's template. */
    prompts: promptSetSchema.optional(),
    compilation: compilationSchema,
    /**
     * The candidates to measure, or `{ "shortlist": { "max", "kinds" } }`: the planner picks the
     * instance types (core/planning/shortlist.ts), and the parsed input carries the request as
     * `shortlist` beside an empty list.
     */
    candidates: z
      .union([z.array(candidateSchema).max(RUN_LIMITS.maxCandidates), shortlistRequestSchema], {
        message:
          'a list of candidates, or { "shortlist": { "max": 6, "kinds": ["cpu", "gpu", "inferentia"] } } for the planner to pick instance types',
      })
      .default([]),
    /** Variable → values; every candidate is expanded over their cartesian product. */
    environmentRanges: z
      .record(
        environmentKeySchema,
        z.array(environmentValueSchema).min(1).max(RUN_LIMITS.maxValuesPerEnvironmentRange),
      )
      .superRefine(refuseCredentials)
      .default({}),
    existingEndpoint: existingEndpointSchema.optional(),
    loadPlan: loadPlanSchema,
    sla: slaSchema,
    /** @default lowest-cost-at-target when sla.targetTps is given, else lowest-cost-per-1m (objectiveOf) */
    objective: z.enum(OBJECTIVES).optional(),
    availability: availabilitySchema,
    scaling: scalingSchema,
    /** "Prove the target" after "Recommend" (with sla.targetTps): `{ "enabled": false }` skips it. */
    prove: proveSchema,
    /** "Ramp test" after the proof (with sla.targetTps): `{ "enabled": true }` runs it. */
    rampTest: rampTestSchema,
    cleanup: z
      .strictObject({ policy: z.enum(CLEANUP_POLICIES).default('delete-all') })
      .default({ policy: 'delete-all' }),
    /** The run is refused, before anything is created, when its estimated cost exceeds this. */
    maxCostUsd: z.number().positive().optional(),
    pricing: z
      .strictObject({
        usdPerHour: z
          .record(
            z.string(),
            z
              .number()
              .positive()
              .max(NUMBER_BOUNDS.maxUsdPerHour, {
                message:
                  `a price of at most ${NUMBER_BOUNDS.maxUsdPerHour} USD per hour (above any SageMaker instance's ` +
                  'on-demand price; the cost per million inferences must stay a finite number)',
              }),
          )
          .default({}),
      })
      .default({ usdPerHour: {} }),
    maxConcurrentCandidates: z.int().min(1).max(RUN_LIMITS.maxConcurrentCandidates).default(2),
    /** Extra tags for every resource the run creates: SageMaker's rules, none in the project's namespace. */
    tags: userTagsSchema.default({}),
    /** The Model Registry package version measured: the run is compared with the group's last approved one. */
    modelPackage: modelPackageSchema.optional(),
    /**
     * The output-quality guard (quality.ts): each candidate's answers to the payload set compared
     * with the reference candidate's; one that answers beyond the rule is never recommended.
     */
    quality: qualitySchema.optional(),
  })
  .superRefine((document, ctx) => {
    const issue = (path: PropertyKey[], message: string, given: unknown): void => {
      ctx.addIssue({ code: 'custom', path, message, input: given });
    };
    // A shortlist's candidates are picked after these rules: each rule reads the listed ones.
    const listed = Array.isArray(document.candidates) ? document.candidates : [];
    const shortlist = Array.isArray(document.candidates) ? undefined : document.candidates.shortlist;
    const input = { ...document, candidates: listed };
    if (input.payload !== undefined && input.payloads !== undefined) {
      issue(
        ['payloads'],
        'either payload (one body) or payloads (a weighted mix), not both: move payload into the payloads list',
        input.payloads,
      );
    } else if (input.prompts !== undefined && (input.payload ?? input.payloads) !== undefined) {
      issue(
        ['prompts'],
        `either prompts (bodies built from a JSON Lines file) or ${input.payload === undefined ? 'payloads' : 'payload'} (bodies sent as they are), not both: remove one`,
        input.prompts.uri,
      );
    } else if (input.payload === undefined && input.payloads === undefined && input.prompts === undefined) {
      issue(
        ['payload'],
        'a payload { "uri": "s3://…", "contentType": "…" }, payloads: a list of them with weights, or prompts { "uri": "s3://…/prompts.jsonl", "generation": { "maxNewTokens": … } }',
        undefined,
      );
    }
    if (input.prompts !== undefined) {
      const prompts = input.prompts;
      for (const { path, message, given } of [
        ...promptFormatIssues(prompts.format, input.loadPlan.response),
        ...promptGenerationIssues(
          promptFormatOf(prompts.format, input.loadPlan.response),
          prompts.generation,
        ),
        ...promptBucketIssues(prompts.buckets),
      ]) {
        issue(['prompts', ...path], message, given);
      }
    }
    if (input.loadPlan.workers > RUN_LIMITS.maxLoadWorkers) {
      issue(
        ['loadPlan', 'workers'],
        `at most ${RUN_LIMITS.maxLoadWorkers} workers (they must all run at once in the workflow's Map)`,
        input.loadPlan.workers,
      );
    }
    for (const { path, message, given } of servingInputIssues(input)) issue(path, message, given);
    for (const { path, message, given } of streamingSlaIssues(input.loadPlan, input.sla)) {
      issue([...path], message, given);
    }
    for (const { path, message, given } of optimizationIssues(input)) issue(path, message, given);
    for (const { path, message, given } of compilerOptionsIssues(input.compilation))
      issue(path, message, given);
    for (const { path, message, given } of quantizationIssues(input.compilation)) issue(path, message, given);
    if (
      input.objective === 'lowest-cost-per-1m-output-tokens' &&
      input.loadPlan.response?.mode !== 'stream'
    ) {
      issue(
        ['objective'],
        'an objective the load test can measure: output tokens are counted from streamed responses only, so set loadPlan.response { "mode": "stream", "format": … } or rank on "lowest-cost-per-1m"',
        input.objective,
      );
    }
    for (const { path, message, given } of runQualityIssues(input, shortlist !== undefined)) {
      issue(path, message, given);
    }
    if (input.existingEndpoint) {
      if (listed.length > 0 || shortlist !== undefined) {
        issue(
          ['candidates'],
          'no candidates when existingEndpoint is given (it is tested as it is)',
          document.candidates,
        );
      }
      if (input.compilation.targets.length > 0) {
        issue(
          ['compilation', 'targets'],
          'no compilation targets when existingEndpoint is given',
          input.compilation.targets,
        );
      }
      return;
    }
    if (!input.model) issue(['model'], 'a model (or an existingEndpoint to test as it is)', undefined);
    if (input.model) {
      for (const { path, message, given } of modelSourceIssues(input.model, input.compilation.targets)) {
        issue(path, message, given);
      }
    }
    if (input.loadPlan.response?.mode === 'stream' && containerStreamFormat(input) === undefined) {
      issue(
        ['loadPlan', 'response', 'format'],
        `one of ${STREAM_FORMATS.join(', ')} with mode "stream": the container's stream format, which the load test reads each response with ` +
          '(only a model served by an LLM container, model.framework djl-lmi, hf-tgi or vllm, has a default)',
        undefined,
      );
    }
    if (input.model?.inputDataType !== undefined && input.model.framework !== 'pytorch') {
      issue(
        ['model', 'inputDataType'],
        `no inputDataType for ${input.model.framework}: Neo takes an input data type for PyTorch models only`,
        input.model.inputDataType,
      );
    }
    if (listed.length === 0 && shortlist === undefined) {
      issue(['candidates'], 'at least one candidate (or an existingEndpoint)', document.candidates);
    }
    if (shortlist !== undefined && input.model !== undefined && input.model.size === undefined) {
      issue(
        ['model', 'size'],
        'the model\'s size { "parameters", "dtype" } with a shortlist: the planner picks only types whose memory holds the model',
        undefined,
      );
    }
    const ids = new Set<string>();
    listed.forEach((candidate, index) => {
      if (candidate.id !== undefined) {
        if (ids.has(candidate.id))
          issue(['candidates', index, 'id'], 'an id no other candidate uses', candidate.id);
        ids.add(candidate.id);
      }
    });
    if (input.compilation.targets.length > 0 && input.model) {
      if (
        input.model.inputShape === undefined &&
        !['xgboost', 'huggingface'].includes(input.model.framework) &&
        !isLlmContainer(input.model.framework)
      ) {
        issue(['model', 'inputShape'], 'the input shape(s), which compilation needs', undefined);
      }
      if (
        ['pytorch', 'tensorflow'].includes(input.model.framework) &&
        input.model.frameworkVersion === undefined
      ) {
        issue(
          ['model', 'frameworkVersion'],
          `the ${input.model.framework} version, which compilation needs`,
          undefined,
        );
      }
    }
    const combinations = Object.values(input.environmentRanges).reduce(
      (product, values) => product * values.length,
      1,
    );
    const candidateCount = shortlist?.max ?? listed.length;
    const expanded = candidateCount * combinations;
    if (expanded > RUN_LIMITS.maxCandidates) {
      issue(
        ['environmentRanges'],
        `at most ${RUN_LIMITS.maxCandidates} candidates after expansion (${candidateCount} ${shortlist === undefined ? 'candidates' : 'shortlisted at most'} × ${combinations} combinations = ${expanded})`,
        input.environmentRanges,
      );
    }
    // The container gets the merged environment: a limit each part keeps may still be passed by
    // their sum. A part over a limit on its own is already refused at its field.
    const modelEnvironment = input.model?.environment ?? {};
    const modelKinds = environmentSizeProblems(environmentSize(modelEnvironment), '').map((p) => p.kind);
    listed.forEach((candidate, index) => {
      const own = environmentSizeProblems(environmentSize(candidate.environment), '').map((p) => p.kind);
      const merged = largestContainerEnvironment(
        modelEnvironment,
        candidate.environment,
        input.environmentRanges,
      );
      const where = ' once model.environment, this environment and environmentRanges are merged';
      for (const { kind, message, given } of environmentSizeProblems(merged, where)) {
        if (!modelKinds.includes(kind) && !own.includes(kind)) {
          issue(['candidates', index, 'environment'], message, given);
        }
      }
    });
    // A shortlisted candidate has no environment of its own: the model's and the ranges' merged.
    if (shortlist !== undefined) {
      const merged = largestContainerEnvironment(modelEnvironment, {}, input.environmentRanges);
      const where = ' once model.environment and environmentRanges are merged';
      for (const { kind, message, given } of environmentSizeProblems(merged, where)) {
        if (!modelKinds.includes(kind)) issue(['environmentRanges'], message, given);
      }
    }
  })
  // A streaming plan of a model in an LLM container reads the container's default format when it
  // names none: the plan carries the format, so every later state reads the same one.
  // A shortlist travels as `shortlist` beside an empty list, so every rule that reads the list
  // reads the same type; "Validate and plan" fills the list before its other checks.
  .transform((parsed) => {
    const { candidates, ...rest } = parsed;
    const input: typeof rest & { candidates: CandidateList; shortlist?: ShortlistRequest } = Array.isArray(
      candidates,
    )
      ? { ...rest, candidates }
      : { ...rest, candidates: [], shortlist: candidates.shortlist };
    const response = input.loadPlan.response;
    const format = containerStreamFormat(input);
    if (response === undefined || response.format !== undefined || format === undefined) return input;
    return { ...input, loadPlan: { ...input.loadPlan, response: { ...response, format } } };
  });

/** The run input's fields as zod reads them: before the cross-field rules and the shortlist's split. */
export type RunInputFields = z.output<typeof runInputSchema.in>;

/** A cross-field rule of the run input: every issue it finds in the fields, paths from the input. */
export type RunInputRule = (document: RunInputFields) => FieldIssue[];

/**
 * `runInputSchema` with more cross-field rules, each run on the same fields after the schema's own,
 * so that one parse reports every issue of all of them, then read as the schema reads them.
 * core/planning/run-input-check.ts adds the rules that consult the catalog; every entry that
 * refuses what the first state refuses parses with its schema.
 */
export function runInputSchemaWith(...rules: readonly RunInputRule[]): typeof runInputSchema {
  const fields = runInputSchema.in.superRefine((document, ctx) => {
    for (const rule of rules) {
      for (const { path, message, given } of rule(document)) {
        ctx.addIssue({ code: 'custom', path, message, input: given });
      }
    }
  });
  return z.pipe(fields, runInputSchema.out);
}

type CandidateList = z.output<typeof candidateSchema>[];

/** Whether the run's model generates tokens: a prompt set, streamed answers or an LLM container. */
export function generatesTokens(
  input: Pick<z.output<typeof runInputSchema>, 'prompts' | 'loadPlan' | 'model'>,
): boolean {
  return (
    input.prompts !== undefined ||
    input.loadPlan.response?.mode === 'stream' ||
    (input.model !== undefined && isLlmContainer(input.model.framework))
  );
}

/**
 * The quality block's rules across fields. A shortlist's candidates are picked at planning, which
 * resolves the reference then; the listed ones are checked here. The guard compares tensor answers:
 * a run that generates tokens is refused with the block named, rather than judged by a rule that
 * cannot read its answers.
 */
function runQualityIssues(
  input: Pick<
    z.output<typeof runInputSchema>,
    'prompts' | 'loadPlan' | 'model' | 'quality' | 'existingEndpoint'
  > & {
    readonly candidates: CandidateList;
  },
  shortlisted: boolean,
): FieldIssue[] {
  if (input.quality === undefined) return [];
  if (generatesTokens(input)) {
    return [
      {
        path: ['quality'],
        message:
          'no quality block for a run that generates tokens (prompts, streamed answers or an LLM container): ' +
          'this guard compares tensor answers to payloads; remove quality, or measure a model that answers tensors',
        given: input.quality.rule.kind,
      },
    ];
  }
  if (shortlisted && input.candidates.length === 0) return [];
  return qualityIssues({
    quality: input.quality,
    candidates: input.candidates,
    existingEndpoint: input.existingEndpoint,
    generative: false,
  });
}

type ModelInput = z.output<typeof modelSchema>;

export type FieldIssue = { path: PropertyKey[]; message: string; given: unknown };

/** The framework fields of a model (both workflows): which image the table gives depends on them. */
export interface FrameworkFields {
  readonly framework: (typeof FRAMEWORKS)[number];
  readonly frameworkVersion?: string | undefined;
  readonly pytorchVersion?: string | undefined;
  readonly tensorflowVersion?: string | undefined;
  readonly image?: string | undefined;
}

/**
 * `huggingface` needs a transformers version with exactly one of PyTorch and TensorFlow; other
 * frameworks take neither. Whether the versions name a DLC of the image table is core/planning's rule
 * (run-input-check.ts). Paths are relative to the model's object (`model` or `endpoint`).
 */
export function frameworkFieldIssues(model: FrameworkFields): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (model.framework !== 'huggingface') {
    for (const field of ['pytorchVersion', 'tensorflowVersion'] as const) {
      if (model[field] !== undefined) {
        issues.push({
          path: [field],
          message: `no ${field} for ${model.framework}: it is a field of framework "huggingface" models only`,
          given: model[field],
        });
      }
    }
    return issues;
  }
  if (model.frameworkVersion === undefined) {
    issues.push({
      path: ['frameworkVersion'],
      message: 'the transformers version of the Hugging Face DLC, such as 4.49.0',
      given: undefined,
    });
  }
  if ((model.pytorchVersion === undefined) === (model.tensorflowVersion === undefined)) {
    issues.push({
      path: ['pytorchVersion'],
      message:
        'exactly one of pytorchVersion and tensorflowVersion: the framework under transformers, such as 2.6.0',
      given: model.tensorflowVersion === undefined ? undefined : model.pytorchVersion,
    });
  }
  return issues;
}

/**
 * Where the model comes from: `artifactUri` or `hub` (Hugging Face only), the framework fields
 * above, and no compilation of a Hugging Face model (Neo has no Hugging Face framework, and a Hub
 * model has no model data before its container starts).
 */
function modelSourceIssues(model: ModelInput, targets: readonly string[]): FieldIssue[] {
  const issues: FieldIssue[] = frameworkFieldIssues(model).map((issue) => ({
    ...issue,
    path: ['model', ...issue.path],
  }));
  // The LLM containers' sources are checked with their settings (core/planning/llm-input.ts).
  if (isLlmContainer(model.framework)) return issues;
  if (model.framework !== 'huggingface') {
    if (model.artifactUri === undefined) {
      issues.unshift({
        path: ['model', 'artifactUri'],
        message: 'the model file or model.tar.gz (an s3:// URI)',
        given: undefined,
      });
    }
    if (model.hub !== undefined) {
      issues.unshift({
        path: ['model', 'hub'],
        message: `no hub for ${model.framework}: it is a field of framework "huggingface" models only`,
        given: model.hub,
      });
    }
    return issues;
  }
  if (model.hub === undefined && model.artifactUri === undefined) {
    issues.unshift({
      path: ['model', 'hub'],
      message:
        'a Hub model { "modelId": "owner/name" }, or artifactUri: a model.tar.gz of a saved transformers model',
      given: undefined,
    });
  }
  if (model.hub !== undefined && model.artifactUri !== undefined) {
    issues.unshift({
      path: ['model', 'artifactUri'],
      message: 'either hub (the DLC downloads the model) or artifactUri (your model.tar.gz), not both',
      given: model.artifactUri,
    });
  }
  if (targets.length > 0) {
    issues.push({
      path: ['compilation', 'targets'],
      message:
        model.hub === undefined
          ? 'no compilation targets for a huggingface model: Neo has no Hugging Face framework (InputConfig.Framework); ' +
            'trace the model to TorchScript and give it as framework "pytorch" to compile it'
          : 'no compilation targets for a Hub model: SageMaker Neo compiles model data it reads from S3, and a Hub model ' +
            'has none until its container downloads it; serve it uncompiled, or give a traced model as framework "pytorch"',
      given: targets,
    });
  }
  return issues;
}

/**
 * The largest container environment a candidate can get: the model's, then the candidate's, then
 * each range variable at its longest value (planning merges them in that order, later ones winning).
 */
function largestContainerEnvironment(
  model: Readonly<Record<string, string>>,
  candidate: Readonly<Record<string, string>>,
  ranges: Readonly<Record<string, readonly string[]>>,
): { entries: number; bytes: number } {
  const longest = Object.fromEntries(
    Object.entries(ranges).map(([name, values]) => [
      name,
      values.reduce(
        (best, value) =>
          environmentSize({ v: value }).bytes > environmentSize({ v: best }).bytes ? value : best,
        '',
      ),
    ]),
  );
  return environmentSize({ ...model, ...candidate, ...longest });
}

export type RunInput = z.output<typeof runInputSchema>;
export type WeightedPayload = z.output<typeof weightedPayloadSchema>;

/** The run's payloads as one list: `payload` is a mix of one, of weight 1. */
export function runPayloads(input: Pick<RunInput, 'payload' | 'payloads'>): WeightedPayload[] {
  if (input.payloads !== undefined) return [...input.payloads];
  return input.payload === undefined ? [] : [{ ...input.payload, weight: 1 }];
}

/** The input field that names payload `index`: `payload.uri` for a single one, else `payloads[i].uri`. */
export function payloadField(input: Pick<RunInput, 'payloads'>, index: number): string {
  return input.payloads === undefined ? 'payload.uri' : `payloads[${index}].uri`;
}
export type RunInputDocument = z.input<typeof runInputSchema>;
export type CandidateInput = RunInput['candidates'][number];
export type Objective = (typeof OBJECTIVES)[number];

/** The objective a run ranks on: the one it names, else the target's when it names a target TPS. */
export function objectiveOf(input: Pick<RunInput, 'objective' | 'sla'>): Objective {
  if (input.objective !== undefined) return input.objective;
  return input.sla.targetTps === undefined ? 'lowest-cost-per-1m' : 'lowest-cost-at-target';
}
