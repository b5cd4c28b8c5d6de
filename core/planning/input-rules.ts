import {
  type Framework,
  IMAGE_TABLE,
  baseFrameworkOf,
  resolveServingImage,
  servingPlatformOf,
  compilationSupportIssues,
} from '../catalog/index.js';
import {
  type InputIssue,
  NoServingImageError,
  describeGiven,
  type LoadPlan,
  MAX_ARRIVAL_RATE,
} from '../contracts/index.js';
import type { RunInput } from '../contracts/index.js';
import { awsSegmentSeconds, stepPeriodMs } from '../load-test/index.js';

/**
 * The rules of "Validate and plan" that need nothing but the run input and the region it runs in:
 * no object read, no quota, no history, no price beyond the schema's. The first state runs them
 * before any AWS read, and the run API's start-run runs this same function, so `POST /runs`
 * refuses with the issues the first state would end the run FAILED with, and the two cannot drift.
 * What needs a read (objects, stream payloads, quotas, the budget once payload sizes are known)
 * stays in the first state.
 */

export interface InputRuleContext {
  /**
   * Where candidates run. Locally (undefined) the project's model server serves every model and
   * its compiler compiles any ONNX model for any target, so the image and Neo rules do not apply.
   */
  readonly servingRegion?: string;
  /** How long one load worker invocation runs. @default awsSegmentSeconds(input.loadPlan) */
  readonly loadSegmentSeconds?: number;
}

/** Every issue of these rules, all at once; none when the run may go on to its AWS reads. */
export function optimizationInputIssues(input: RunInput, context: InputRuleContext): InputIssue[] {
  const segmentSeconds = context.loadSegmentSeconds ?? awsSegmentSeconds(input.loadPlan);
  const region = context.servingRegion;
  return [
    ...rampOutsideItsPhaseIssues(input.loadPlan),
    ...roundsWithinSegmentIssues(input.loadPlan, segmentSeconds),
    ...rampSecondsIssues(input, segmentSeconds),
    ...offeredTargetIssues(input),
    ...(region === undefined ? [] : servingImageIssues(input, region)),
    ...(region === undefined ? [] : compilationIssues(input, region)),
    ...(region === undefined ? [] : quantizationIssues(input)),
  ];
}

/**
 * int8 quantization is the local compiler's (core/contracts/quantization.ts): Neo's CompilerOptions
 * choose code generation for CPU and GPU targets, not precision (SageMaker API reference,
 * OutputConfig.CompilerOptions: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html),
 * so an AWS run that asks for it is refused before anything is created.
 */
function quantizationIssues(input: RunInput): InputIssue[] {
  const targets = Object.keys(input.compilation.quantization ?? {});
  if (targets.length === 0) return [];
  return [
    {
      field: 'compilation.quantization',
      given: describeGiven(targets),
      expected:
        'no quantization on AWS: SageMaker Neo has no int8 quantization option, so only the local compiler offers it; ' +
        'quantize the model before the run and give the quantized model, or remove compilation.quantization',
    },
  ];
}

/**
 * What the async image rule reads of an async run input (core/contracts/async-run-input.ts
 * `AsyncRunInput`): the deployed endpoint's framework, versions, instance type and image.
 */
export interface AsyncEndpointInput {
  readonly endpoint?:
    | {
        readonly framework: Framework;
        readonly frameworkVersion?: string | undefined;
        readonly pytorchVersion?: string | undefined;
        readonly tensorflowVersion?: string | undefined;
        readonly instanceType: string;
        readonly image?: string | undefined;
      }
    | undefined;
}

/**
 * The rules of "Validate async run" that need nothing but the input and the region: the image that
 * serves the endpoint it deploys (a reused endpoint has its own). The first state runs them before
 * any object read or SageMaker call, and the run API's start-run runs this same function for
 * `POST /async-runs`, so both refuse with the same issues. Locally (no region) the project's model
 * server serves the endpoint: nothing to check.
 */
export function asyncInputIssues(
  input: AsyncEndpointInput,
  context: Pick<InputRuleContext, 'servingRegion'>,
): InputIssue[] {
  const endpoint = input.endpoint;
  const region = context.servingRegion;
  if (endpoint === undefined || region === undefined) return [];
  try {
    resolveServingImage({
      framework: endpoint.framework,
      frameworkVersion: endpoint.frameworkVersion,
      baseFramework: baseFrameworkOf(endpoint),
      region,
      instanceType: endpoint.instanceType,
      explicitImage: endpoint.image,
    });
    return [];
  } catch (error) {
    if (!(error instanceof NoServingImageError)) throw error;
    return [
      {
        field: 'endpoint',
        given: describeGiven({
          framework: endpoint.framework,
          ...(endpoint.frameworkVersion === undefined ? {} : { frameworkVersion: endpoint.frameworkVersion }),
          instanceType: endpoint.instanceType,
        }),
        expected: `${error.message} Name an image that serves it in endpoint.image, or pick a framework and instance type the table serves`,
      },
    ];
  }
}

/**
 * A ramp step (`loadPlan.ramp`, load-test/timeline.ts) is the ramp test's own load: "Recommend"
 * writes it (serving/ramp-test.ts `rampLoadPlan`) for the policy it recommends. A candidate's load
 * test as one ramp would be judged by its whole-window figures, which say nothing of when the SLA
 * broke, so candidates are measured with constant steps and the input asks for the ramp with
 * `rampTest`.
 */
function rampOutsideItsPhaseIssues(loadPlan: LoadPlan): InputIssue[] {
  if (loadPlan.ramp === undefined) return [];
  return [
    {
      field: 'loadPlan.ramp',
      given: describeGiven(loadPlan.ramp),
      expected:
        'absent: candidates are measured with constant steps; to test the recommended scaling policy under a rising rate, set rampTest.enabled (with sla.targetTps): the run then ramps from the minimum to the peak after "Recommend"',
    },
  ];
}

/**
 * A round (knee probe or repeat, load-test/rounds.ts) is one step run by one worker invocation:
 * with steps longer than an invocation's segment, a plan that asks for rounds is refused (one that
 * names none gets none: validate-and-plan.ts `roundsWithinSegment`).
 */
function roundsWithinSegmentIssues(loadPlan: LoadPlan, segmentSeconds: number): InputIssue[] {
  const stepSeconds = stepPeriodMs(loadPlan) / 1000;
  if (stepSeconds <= segmentSeconds) return [];
  const why = `steps of ${stepSeconds} s (warmupSeconds + stepDurationSeconds) are longer than one load worker invocation (${segmentSeconds} s), and a round runs as one; shorten the steps to below it for rounds`;
  const issues: InputIssue[] = [];
  if (loadPlan.kneeProbes !== undefined && loadPlan.kneeProbes > 0) {
    issues.push({ field: 'loadPlan.kneeProbes', given: String(loadPlan.kneeProbes), expected: `0: ${why}` });
  }
  if (loadPlan.repeats !== undefined && loadPlan.repeats > 1) {
    issues.push({ field: 'loadPlan.repeats', given: String(loadPlan.repeats), expected: `1: ${why}` });
  }
  return issues;
}

/**
 * "Prove the target" offers `sla.targetTps` as one open-model step, and "Ramp test" rises to the
 * peak (`scaling.peakTps`, else the target): both are arrival rates the load workers must send, held
 * to the bound of any open-model step (MAX_ARRIVAL_RATE, load-test/plan.ts). A target above it
 * cannot be measured; without the proof and the ramp it is only sized, and "Recommend" holds the
 * count it needs to what an endpoint can have (serving/target-sizing.ts).
 */
function offeredTargetIssues(input: RunInput): InputIssue[] {
  const target = input.sla.targetTps;
  if (target === undefined) return [];
  const issues: InputIssue[] = [];
  if (input.prove.enabled && target > MAX_ARRIVAL_RATE) {
    issues.push({
      field: 'sla.targetTps',
      given: describeGiven(target),
      expected:
        `at most ${MAX_ARRIVAL_RATE} requests/s with prove.enabled: "Prove the target" sends the target as one ` +
        `open-model step, and a step's arrival rate is at most ${MAX_ARRIVAL_RATE}; lower the target, or set ` +
        'prove.enabled to false to size it without a proof',
    });
  }
  const peak = input.scaling.peakTps ?? target;
  if (input.rampTest.enabled && peak > MAX_ARRIVAL_RATE) {
    const field = input.scaling.peakTps === undefined ? 'sla.targetTps' : 'scaling.peakTps';
    issues.push({
      field,
      given: describeGiven(peak),
      expected:
        `at most ${MAX_ARRIVAL_RATE} requests/s with rampTest.enabled: the ramp test's arrival rate rises to ` +
        `the peak, and a step's arrival rate is at most ${MAX_ARRIVAL_RATE}; lower it, or turn the ramp test off`,
    });
  }
  return issues;
}

/**
 * The ramp test (with a target, when asked for) runs in one load worker invocation: between two
 * invocations no load is offered, which would pause the rising rate the policy follows. So the
 * warm-up and the ramp must fit one invocation.
 */
function rampSecondsIssues(input: RunInput, segmentSeconds: number): InputIssue[] {
  const asked = input.rampTest.seconds;
  if (input.sla.targetTps === undefined || !input.rampTest.enabled || asked === undefined) return [];
  const fits = rampSecondsThatFit(input.loadPlan, segmentSeconds);
  if (asked <= fits) return [];
  return [
    {
      field: 'rampTest.seconds',
      given: describeGiven(asked),
      expected:
        `at most ${fits} s: loadPlan.warmupSeconds (${input.loadPlan.warmupSeconds} s) and the ramp run in one load ` +
        `worker invocation (${segmentSeconds} s), since a gap between invocations would pause the rising load the ` +
        'policy follows; shorten the ramp (or the warm-up, or loadPlan.requestTimeoutMs, which the invocation keeps for the last requests)',
    },
  ];
}

/** The longest ramp that fits one load worker invocation after the warm-up. */
export function rampSecondsThatFit(loadPlan: LoadPlan, segmentSeconds: number): number {
  return Math.floor(segmentSeconds - loadPlan.warmupSeconds);
}

/**
 * Neo's framework × version × target × region table (catalog/neo-support.ts): a job it would refuse
 * minutes after CreateCompilationJob is refused here, with every reason at once.
 */
function compilationIssues(input: RunInput, region: string): InputIssue[] {
  const model = input.model;
  if (model === undefined || input.compilation.targets.length === 0) return [];
  return compilationSupportIssues(
    {
      framework: model.framework,
      ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
      ...(model.inputDataType === undefined ? {} : { inputDataType: model.inputDataType }),
      targets: input.compilation.targets,
    },
    region,
  );
}

/**
 * Uncompiled candidates need an image from the table (or `model.image`); compiled ones get the
 * image Neo names for its artifact, so they are checked when deployed.
 */
function servingImageIssues(input: RunInput, region: string): InputIssue[] {
  const compiledIssues = compiledImageIssues(input);
  if (compiledIssues.length > 0) return compiledIssues;
  const model = input.model;
  if (model === undefined || model.image !== undefined) return [];
  const issues: InputIssue[] = [];
  input.candidates.forEach((candidate, index) => {
    // Optimized candidates are served by the image the job recommends (or model.compiledImage).
    if ('instanceType' in candidate && (candidate.compiledFor ?? candidate.optimizedBy) !== undefined) return;
    try {
      resolveServingImage({
        framework: model.framework,
        ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
        baseFramework: baseFrameworkOf(model),
        region,
        instanceType: 'instanceType' in candidate ? candidate.instanceType : 'ml.m5.large',
      });
    } catch (error) {
      if (!(error instanceof NoServingImageError)) throw error;
      issues.push({
        field: `candidates[${index}]`,
        given: describeGiven(candidate),
        expected: error.message,
      });
    }
  });
  return issues;
}

/**
 * A compiled candidate is served by `model.compiledImage`, the image its compilation job names, or
 * the table's image of the framework compiled for the target's hardware (catalog/images.ts). When
 * the table has none for that framework and hardware at all (ONNX compiled for Inferentia or
 * Graviton: no Neo container exists, catalog/image-table.ts), its deploy would fail after the
 * compilation job ran: refused here, naming `model.compiledImage` as the way to serve it.
 */
function compiledImageIssues(input: RunInput): InputIssue[] {
  const model = input.model;
  if (model === undefined || model.compiledImage !== undefined) return [];
  return input.candidates.flatMap((candidate, index) => {
    if (!('instanceType' in candidate) || candidate.compiledFor === undefined) return [];
    const platform = servingPlatformOf(candidate.compiledFor);
    const exists = IMAGE_TABLE.some(
      (row) => row.framework === model.framework && row.compiled && row.platform === platform,
    );
    if (exists) return [];
    return [
      {
        field: `candidates[${index}].compiledFor`,
        given: `${JSON.stringify(candidate.compiledFor)} for a ${model.framework} model`,
        expected: `a target that SageMaker has a compiled ${model.framework} serving image for (none exists for ${candidate.compiledFor}'s hardware), the uncompiled candidate, or model.compiledImage naming an image that serves the compiled artifact`,
      },
    ];
  });
}
