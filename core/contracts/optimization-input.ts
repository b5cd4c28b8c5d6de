import { z } from 'zod';
import { refuseCredentials } from './credentials.js';

/**
 * The run input's SageMaker inference optimization jobs (`compilation.optimizations`, a candidate's
 * `optimizedBy`): CreateOptimizationJob compiles (Neuron, for Inferentia2 and Trainium),
 * quantizes (AWQ, FP8, …) or shards a generative model for one deployment instance type, and a
 * candidate serves what a job made (docs/decisions.md §56). "Inference optimization for Amazon
 * SageMaker AI models": https://docs.aws.amazon.com/sagemaker/latest/dg/model-optimize.html
 *
 * Every constraint below is the SageMaker Smithy model's (aws/api-models-aws,
 * sagemaker/service/2017-07-24/sagemaker-2017-07-24.json); the conformance layer checks the requests
 * against the same model.
 */

/**
 * `OptimizationJobDeploymentInstanceType`: the instance types an optimization job optimizes for
 * (SageMaker API reference, CreateOptimizationJob `DeploymentInstanceType`), as the installed
 * @aws-sdk/client-sagemaker exports the enum (3.1142.0: newer than the stored Smithy model, which
 * lacks g4dn, g7, g7e, p5e, p5en and p6-b200; what the SDK sends is what it knows, as for the
 * conformance table's enums). Kept here because the core imports no SDK;
 * test/core/contracts/run-input-optimizations.test.ts compares it with the SDK's export, so an
 * SDK update that changes it fails a test rather than a run.
 */
export const OPTIMIZATION_INSTANCE_TYPES = [
  'ml.g4dn.xlarge',
  'ml.g4dn.2xlarge',
  'ml.g4dn.4xlarge',
  'ml.g4dn.8xlarge',
  'ml.g4dn.12xlarge',
  'ml.g4dn.16xlarge',
  'ml.g5.xlarge',
  'ml.g5.2xlarge',
  'ml.g5.4xlarge',
  'ml.g5.8xlarge',
  'ml.g5.12xlarge',
  'ml.g5.16xlarge',
  'ml.g5.24xlarge',
  'ml.g5.48xlarge',
  'ml.g6.xlarge',
  'ml.g6.2xlarge',
  'ml.g6.4xlarge',
  'ml.g6.8xlarge',
  'ml.g6.12xlarge',
  'ml.g6.16xlarge',
  'ml.g6.24xlarge',
  'ml.g6.48xlarge',
  'ml.g6e.xlarge',
  'ml.g6e.2xlarge',
  'ml.g6e.4xlarge',
  'ml.g6e.8xlarge',
  'ml.g6e.12xlarge',
  'ml.g6e.16xlarge',
  'ml.g6e.24xlarge',
  'ml.g6e.48xlarge',
  'ml.g7.2xlarge',
  'ml.g7.4xlarge',
  'ml.g7.8xlarge',
  'ml.g7.12xlarge',
  'ml.g7.24xlarge',
  'ml.g7.48xlarge',
  'ml.g7e.2xlarge',
  'ml.g7e.4xlarge',
  'ml.g7e.8xlarge',
  'ml.g7e.12xlarge',
  'ml.g7e.24xlarge',
  'ml.g7e.48xlarge',
  'ml.inf2.xlarge',
  'ml.inf2.8xlarge',
  'ml.inf2.24xlarge',
  'ml.inf2.48xlarge',
  'ml.p4d.24xlarge',
  'ml.p4de.24xlarge',
  'ml.p5.48xlarge',
  'ml.p5e.48xlarge',
  'ml.p5en.48xlarge',
  'ml.p6-b200.48xlarge',
  'ml.trn1.2xlarge',
  'ml.trn1.32xlarge',
  'ml.trn1n.32xlarge',
] as const;

/**
 * At most this many optimization jobs per run: each is an iteration of the compile Map beside the
 * Neo targets (10 at most), and each is billed for the instance SageMaker runs it on.
 */
export const MAX_OPTIMIZATIONS = 5;

/**
 * `OptimizationJobEnvironmentVariables` (the job's `OptimizationEnvironment` and each technique's
 * `OverrideEnvironment`): 0–25 entries, keys `NonEmptyString256` (pattern `^(?!\s*$).+$`, ≤ 256),
 * values `String256` (≤ 256).
 */
export const OPTIMIZATION_ENVIRONMENT_LIMITS = {
  maxEntries: 25,
  maxKeyLength: 256,
  maxValueLength: 256,
} as const;

const optimizationEnvironmentSchema = z
  .record(
    z
      .string()
      .max(OPTIMIZATION_ENVIRONMENT_LIMITS.maxKeyLength, {
        message: 'a variable name of at most 256 characters',
      })
      .regex(/^(?!\s*$).+$/, { message: 'a variable name that is not blank' }),
    z
      .string()
      .max(OPTIMIZATION_ENVIRONMENT_LIMITS.maxValueLength, { message: 'a value of at most 256 characters' }),
  )
  .refine((environment) => Object.keys(environment).length <= OPTIMIZATION_ENVIRONMENT_LIMITS.maxEntries, {
    message: `at most ${OPTIMIZATION_ENVIRONMENT_LIMITS.maxEntries} variables (SageMaker's OptimizationJobEnvironmentVariables)`,
  })
  .superRefine(refuseCredentials);

/**
 * One technique: the LMI image that runs it (`OptimizationContainerImage`: ≤ 255 characters, no
 * whitespace; absent, SageMaker chooses) and the variables it overrides, e.g. `OPTION_QUANTIZE`.
 */
const techniqueSchema = z.strictObject({
  image: z
    .string()
    .max(255)
    .regex(
      /^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/[a-z0-9._/-]+(:[\w.-]+|@sha256:[a-f0-9]{64})$/,
      {
        message:
          'an LMI image URI in ECR such as 763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:tag',
      },
    )
    .optional(),
  overrideEnvironment: optimizationEnvironmentSchema.optional(),
});

/** The techniques of `OptimizationConfigs` (a union per entry: compilation, quantization, sharding). */
export const OPTIMIZATION_TECHNIQUES = ['compilation', 'quantization', 'sharding'] as const;

export const optimizationSchema = z.strictObject({
  /** What candidates name in `optimizedBy`; kebab-case, so never a Neo target (`ml_…`). */
  id: z.string().regex(/^[a-z0-9](-?[a-z0-9]){0,23}$/, {
    message: 'a short kebab-case id (letters, digits, dashes; ≤ 24)',
  }),
  deploymentInstanceType: z.enum(OPTIMIZATION_INSTANCE_TYPES, {
    message:
      "an instance type an optimization job optimizes for (SageMaker's OptimizationJobDeploymentInstanceType): " +
      OPTIMIZATION_INSTANCE_TYPES.join(', '),
  }),
  techniques: z
    .strictObject({
      compilation: techniqueSchema.optional(),
      quantization: techniqueSchema.optional(),
      sharding: techniqueSchema.optional(),
    })
    .refine((techniques) => OPTIMIZATION_TECHNIQUES.some((name) => techniques[name] !== undefined), {
      message: `at least one technique: ${OPTIMIZATION_TECHNIQUES.join(', ')} (e.g. { "quantization": { "overrideEnvironment": { "OPTION_QUANTIZE": "awq" } } })`,
    }),
  /** `OptimizationEnvironment`: the model container's variables while the job runs. */
  environment: optimizationEnvironmentSchema.optional(),
  /** `ModelAccessConfig.AcceptEula`: accept the model's licence (gated models such as Llama). */
  acceptEula: z.boolean().optional(),
});

export type OptimizationInput = z.output<typeof optimizationSchema>;

/** The family of an instance type: `ml.inf2.xlarge` → `inf2`. */
export function instanceFamilyOf(instanceType: string): string | undefined {
  return /^ml\.([a-z0-9-]+)\./.exec(instanceType)?.[1];
}

interface Issue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** What the cross-field rules read (a structural view of the run input, to keep this module apart). */
export interface OptimizationRunView {
  readonly model?: { readonly artifactUri?: string | undefined; readonly framework: string } | undefined;
  readonly compilation: { readonly optimizations: readonly OptimizationInput[] };
  readonly candidates: readonly (
    | {
        readonly instanceType: string;
        readonly compiledFor?: string | undefined;
        readonly optimizedBy?: string | undefined;
      }
    | { readonly serverless: unknown }
  )[];
  readonly loadPlan: { readonly response?: { readonly mode: string } | undefined };
  readonly existingEndpoint?: unknown;
}

/**
 * The rules across fields: unique ids; an optimization only for a generative run (streamed
 * responses: optimization jobs apply to LLMs served by the LMI container) of a model in S3 (the
 * job's `ModelSource` is S3 only); a candidate's `optimizedBy` naming a job for its own instance
 * family (an artifact compiled or sharded for one accelerator does not load on another).
 */
export function optimizationIssues(input: OptimizationRunView): Issue[] {
  const issues: Issue[] = [];
  const { optimizations } = input.compilation;
  const ids = new Map<string, OptimizationInput>();
  optimizations.forEach((optimization, index) => {
    if (ids.has(optimization.id)) {
      issues.push({
        path: ['compilation', 'optimizations', index, 'id'],
        message: 'an id no other optimization uses',
        given: optimization.id,
      });
    }
    ids.set(optimization.id, optimization);
  });
  if (optimizations.length > 0) {
    if (input.existingEndpoint !== undefined) {
      issues.push({
        path: ['compilation', 'optimizations'],
        message: 'no optimizations when existingEndpoint is given (it is tested as it is)',
        given: optimizations.map((o) => o.id),
      });
    } else if (input.loadPlan.response?.mode !== 'stream') {
      issues.push({
        path: ['compilation', 'optimizations'],
        message:
          'optimizations of a generative model only: SageMaker optimization jobs optimize LLMs served by the LMI ' +
          'container, whose answers stream; set loadPlan.response { "mode": "stream", "format": … }, or compile ' +
          'this model with compilation.targets (SageMaker Neo)',
        given: optimizations.map((o) => o.id),
      });
    }
    if (input.model !== undefined && input.model.artifactUri === undefined) {
      issues.push({
        path: ['compilation', 'optimizations'],
        message:
          'a model with artifactUri: an optimization job reads its source model from S3 (ModelSource.S3), and a Hub ' +
          'model has none until its container downloads it',
        given: optimizations.map((o) => o.id),
      });
    }
  }
  input.candidates.forEach((candidate, index) => {
    if (!('instanceType' in candidate) || candidate.optimizedBy === undefined) return;
    const path = ['candidates', index, 'optimizedBy'];
    if (candidate.compiledFor !== undefined) {
      issues.push({
        path,
        message: "either compiledFor (a Neo artifact) or optimizedBy (an optimization job's model), not both",
        given: candidate.optimizedBy,
      });
      return;
    }
    const optimization = ids.get(candidate.optimizedBy);
    if (optimization === undefined) {
      issues.push({
        path,
        message: `the id of an optimization in compilation.optimizations (${[...ids.keys()].join(', ') || 'none listed'})`,
        given: candidate.optimizedBy,
      });
      return;
    }
    const family = instanceFamilyOf(optimization.deploymentInstanceType);
    if (instanceFamilyOf(candidate.instanceType) !== family) {
      issues.push({
        path,
        message:
          `an optimization for the candidate's instance family: ${optimization.id} optimizes for ` +
          `${optimization.deploymentInstanceType}, and its model does not run on ${candidate.instanceType}; ` +
          `use an ml.${family ?? '?'}.* candidate or an optimization for ${candidate.instanceType}`,
        given: candidate.optimizedBy,
      });
    }
  });
  return issues;
}
