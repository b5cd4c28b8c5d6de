import type { InputIssue, FRAMEWORKS, INPUT_DATA_TYPES } from '../contracts/index.js';
import { COMPILATION_TARGETS } from '../contracts/index.js';

/**
 * What SageMaker Neo compiles for each cloud target of the catalog: framework × model version ×
 * target × region. CreateCompilationJob accepts any combination its schema allows and fails minutes
 * later; "Validate and plan" checks the run input against this table on AWS, before anything is
 * created (locally the project's compiler compiles any ONNX model for any target; see docs/run-input.md,
 * "What each compilation target supports").
 *
 * Sources, recorded on NEO_SUPPORT_SOURCE.recordedOn:
 * - SageMaker docs "Supported Instance Types and Frameworks" (NEO_SUPPORT_SOURCE.url): the
 *   "Cloud Instances" table (CPU and GPU targets) and the "AWS Inferentia" table (ml_inf1). Model
 *   versions are the table's "Model Version" column. TFLite appears only in the edge devices'
 *   table (neo-supported-devices-edge-frameworks.html): Neo compiles it for no cloud target.
 * - SageMaker API reference, OutputConfig.TargetDevice (NEO_SUPPORT_SOURCE.apiUrl): "ml_trn1 is
 *   available only in US East (N. Virginia) Region, and ml_inf2 is available only in US East
 *   (Ohio) Region"; OutputConfig.CompilerOptions: `DTYPE` applies to PyTorch on `ml_*` targets
 *   "except for ml_inf", with the values float32 and int64.
 * - SageMaker docs "Neo Inference Container Images" (NEO_SUPPORT_SOURCE.imagesUrl): the images
 *   that serve Neo artifacts for Inferentia2/Trainium are PyTorch 1.13.1 and TensorFlow 2.10.1
 *   Neuron builds; the support page has no ml_inf2 table, so these are the versions listed here.
 */
export const NEO_SUPPORT_SOURCE = {
  url: 'https://docs.aws.amazon.com/sagemaker/latest/dg/neo-supported-cloud.html',
  apiUrl: 'https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html',
  deployUrl: 'https://docs.aws.amazon.com/sagemaker/latest/dg/neo-deployment-hosting-services.html',
  imagesUrl:
    'https://docs.aws.amazon.com/sagemaker/latest/dg/neo-deployment-hosting-services-container-images.html',
  recordedOn: '2026-11-24',
} as const;

type Framework = (typeof FRAMEWORKS)[number];
type InputDataType = (typeof INPUT_DATA_TYPES)[number];

/**
 * `lines`: these release lines only (`1.13` accepts `1.13` and `1.13.1`, not `1.14`).
 * `upTo`: this version or any earlier one (the docs' "Supports X or earlier").
 */
export type VersionRule =
  | { readonly kind: 'lines'; readonly lines: readonly string[] }
  | { readonly kind: 'upTo'; readonly version: string };

export interface TargetSupport {
  /** Frameworks Neo compiles for the target, with the model versions it accepts. */
  readonly frameworks: Readonly<Partial<Record<Framework, VersionRule>>>;
  /** Regions where Neo compiles for the target; absent = every region Neo runs in. */
  readonly regions?: readonly string[];
  /** Whether `OutputConfig.CompilerOptions` takes `{"dtype": …}` (PyTorch) for the target. */
  readonly takesInputDataType: boolean;
  /**
   * Set when no AWS page lists the target's frameworks: the source the row rests on, and what is
   * assumed. Planning accepts the target with this as a warning (compilationSupportWarnings).
   */
  readonly unverified?: string;
}

const lines = (...values: string[]): VersionRule => ({ kind: 'lines', lines: values });
const upTo = (version: string): VersionRule => ({ kind: 'upTo', version });

/** The "Cloud Instances" table: every CPU and GPU target. */
const CPU_AND_GPU: TargetSupport = {
  frameworks: {
    mxnet: upTo('1.8.0'),
    onnx: upTo('1.7.0'),
    keras: upTo('2.2.4'),
    pytorch: lines('1.4', '1.5', '1.6', '1.7', '1.8', '1.12', '1.13', '2.0'),
    tensorflow: lines('1.15.3', '2.9'),
    xgboost: upTo('1.3.3'),
  },
  takesInputDataType: true,
};

/** Neuron targets: CompilerOptions are Neuron compiler flags there, with no `dtype` key. */
const INFERENTIA2: TargetSupport = {
  frameworks: { pytorch: lines('1.13'), tensorflow: lines('2.10') },
  regions: ['us-east-2'],
  takesInputDataType: false,
};

/**
 * Graviton targets: `ml_c6g` and `ml_m6g` are values of the API's TargetDevice enum
 * (NEO_SUPPORT_SOURCE.apiUrl), but neither the "Cloud Instances" list of the support page nor
 * "Deploy a Model" (NEO_SUPPORT_SOURCE.deployUrl: ml.c5, ml.c4, ml.m5, ml.m4, ml.p3, ml.p2 and
 * ml.inf1) names them, and no AWS page lists their frameworks. The CPU table is assumed for them, and
 * a run that compiles for one is warned at planning rather than refused: the enum says Neo takes the
 * target, nothing says which models it compiles for it.
 */
const GRAVITON: TargetSupport = {
  ...CPU_AND_GPU,
  unverified:
    'the SageMaker API lists it as a TargetDevice, but no AWS page lists the frameworks Neo compiles for ' +
    'Graviton ("Supported Instance Types and Frameworks" and "Deploy a Model" name x86 and NVIDIA targets ' +
    'only): the CPU table is assumed, and the compilation job may fail after it started',
};

export const NEO_SUPPORT: Readonly<Record<string, TargetSupport>> = {
  ml_c5: CPU_AND_GPU,
  ml_m5: CPU_AND_GPU,
  ml_c6g: GRAVITON,
  ml_m6g: GRAVITON,
  ml_g4dn: CPU_AND_GPU,
  ml_p3: CPU_AND_GPU,
  ml_inf1: {
    frameworks: { mxnet: upTo('1.8'), pytorch: upTo('1.9'), tensorflow: upTo('2.5') },
    takesInputDataType: false,
  },
  ml_inf2: INFERENTIA2,
};

function parts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** Component-wise comparison, a missing component counting as 0 (`1.8` = `1.8.0`). */
function compareVersions(a: string, b: string): number {
  const left = parts(a);
  const right = parts(b);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

export function versionMatches(rule: VersionRule, version: string): boolean {
  if (rule.kind === 'upTo') return compareVersions(version, rule.version) <= 0;
  return rule.lines.some((line) => version === line || version.startsWith(`${line}.`));
}

export function describeRule(rule: VersionRule): string {
  if (rule.kind === 'upTo') return `${rule.version} or earlier`;
  const all = [...rule.lines];
  const last = all.pop();
  return all.length === 0 ? `${last}` : `${all.join(', ')} or ${last}`;
}

export interface CompilationRequest {
  readonly framework: Framework;
  readonly frameworkVersion?: string;
  readonly inputDataType?: InputDataType;
  readonly targets: readonly string[];
}

const SEE = `(SageMaker Neo, ${NEO_SUPPORT_SOURCE.url})`;

/**
 * Every reason Neo would refuse to compile this model for these targets in `region`: the field,
 * what was given and what Neo supports. `region` undefined skips the region rule (examples, docs).
 */
export function compilationSupportIssues(request: CompilationRequest, region?: string): InputIssue[] {
  const issues: InputIssue[] = [];
  const { framework, frameworkVersion } = request;
  const compiling = COMPILATION_TARGETS.filter((target) => NEO_SUPPORT[target]?.frameworks[framework]);
  request.targets.forEach((target, index) => {
    const field = `compilation.targets[${index}]`;
    const support = NEO_SUPPORT[target];
    if (support === undefined) {
      issues.push({
        field,
        given: JSON.stringify(target),
        expected: `one of ${COMPILATION_TARGETS.join(', ')}`,
      });
      return;
    }
    const rule = support.frameworks[framework];
    if (rule === undefined) {
      issues.push({
        field,
        given: JSON.stringify(target),
        expected:
          compiling.length === 0
            ? `no target: Neo compiles ${framework} models for edge devices only, not for cloud instances ${SEE}; serve the model uncompiled`
            : `a target that compiles ${framework} models: ${compiling.join(', ')} ${SEE}`,
      });
      return;
    }
    if (support.regions !== undefined && region !== undefined && !support.regions.includes(region)) {
      issues.push({
        field,
        given: `${JSON.stringify(target)} in ${region}`,
        expected:
          `a target Neo compiles for in ${region}: ${target} compiles only in ${support.regions.join(', ')} ` +
          `(SageMaker API reference, ${NEO_SUPPORT_SOURCE.apiUrl}); deploy the stack there or drop ${target}`,
      });
    }
    if (frameworkVersion !== undefined && !versionMatches(rule, frameworkVersion)) {
      issues.push({
        field: 'model.frameworkVersion',
        given: JSON.stringify(frameworkVersion),
        expected: `a ${framework} version Neo compiles for ${field} (${target}): ${describeRule(rule)} ${SEE}`,
      });
    }
    if (request.inputDataType !== undefined && !support.takesInputDataType) {
      issues.push({
        field: 'model.inputDataType',
        given: JSON.stringify(request.inputDataType),
        expected:
          `no input data type for ${field} (${target}): Neo takes CompilerOptions dtype for ml_* targets except ` +
          `Inferentia, where PyTorch models must take float32 inputs (${NEO_SUPPORT_SOURCE.apiUrl}); ` +
          'compile for a CPU/GPU target, or export the model with float32 inputs',
      });
    }
  });
  return issues;
}

/** Whether Neo takes `{"dtype": …}` in CompilerOptions when compiling for `target`. */
export function takesInputDataType(target: string): boolean {
  return NEO_SUPPORT[target]?.takesInputDataType ?? false;
}

/**
 * A warning per target whose frameworks no AWS page lists (`TargetSupport.unverified`), naming the
 * target, the source the table has and what it assumes.
 */
export function compilationSupportWarnings(targets: readonly string[]): string[] {
  return targets.flatMap((target) => {
    const unverified = NEO_SUPPORT[target]?.unverified;
    return unverified === undefined
      ? []
      : [
          `Neo target ${target} is unverified: ${unverified} (${NEO_SUPPORT_SOURCE.apiUrl}, ${NEO_SUPPORT_SOURCE.url}).`,
        ];
  });
}
