/** What local mode adds to, and refuses in, a run input before it runs. */
import type { InputIssue } from '../../core/contracts/index.js';
import { describeGiven, isRecord, isLlmContainer } from '../../core/contracts/index.js';
import { MIN_SEGMENT_SECONDS, LOCAL_DEFAULT_REPEATS } from '../../core/load-test/index.js';
import { availableParallelism } from 'node:os';
import { planServerCpu, DEFAULT_MAX_CPU_OVERCOMMIT, LOCAL_IMAGE } from '../platform/index.js';

/**
 * Local mode serves every model with the project model server, so the serving image does not
 * matter; without one, the planner would look up a SageMaker image, which uncompiled ONNX lacks.
 */
export function withLocalDefaults(input: unknown, machine: LocalMachine = THIS_MACHINE): unknown {
  return withLocalInterleaving(withLocalRepeats(withLocalImage(input, 'model')), machine);
}

/** What the local model host may run at once: its quota (LocalModelHost `maxCpuOvercommit`). */
export interface LocalMachine {
  readonly availableCpus: number;
  readonly maxThreads: number;
}

const THIS_MACHINE: LocalMachine = {
  availableCpus: availableParallelism(),
  maxThreads: availableParallelism() * DEFAULT_MAX_CPU_OVERCOMMIT,
};

/**
 * Local runs interleave their repeats across candidates when the input does not say (AWS runs do
 * only when asked: kept endpoints are billed there), since drift on a shared machine follows time
 * (bench/RESULTS.md, "Run-to-run stability"). Only when every candidate's model server fits this machine's
 * quota at once: a candidate waiting for threads that the kept endpoints hold would wait until its
 * quota Retry gave up.
 */
function withLocalInterleaving(input: unknown, machine: LocalMachine): unknown {
  const plan = isRecord(input) ? input.loadPlan : undefined;
  if (!isRecord(input) || !isRecord(plan) || plan.interleaveRepeats !== undefined) return input;
  const threads = threadsAtOnce(input, machine.availableCpus);
  if (threads === undefined || threads > machine.maxThreads) return input;
  return { ...input, loadPlan: { ...plan, interleaveRepeats: true } };
}

/**
 * The threads every candidate's model servers would hold at once, as LocalModelHost plans them
 * (one server per instance); undefined when the input is not one this can read (the schema then
 * says what is wrong).
 */
export function threadsAtOnce(input: Record<string, unknown>, availableCpus: number): number | undefined {
  if (!Array.isArray(input.candidates)) return undefined;
  const modelEnvironment = isRecord(input.model) ? stringRecord(input.model.environment) : {};
  const ranges = isRecord(input.environmentRanges) ? Object.entries(input.environmentRanges) : [];
  const combinations = ranges.reduce<Record<string, string>[]>(
    (acc, [name, values]) =>
      Array.isArray(values)
        ? acc.flatMap((combo) => values.map((value) => ({ ...combo, [name]: String(value) })))
        : acc,
    [{}],
  );
  let threads = 0;
  for (const candidate of input.candidates) {
    if (!isRecord(candidate)) return undefined;
    const serverless = isRecord(candidate.serverless) ? candidate.serverless : undefined;
    const instanceType = typeof candidate.instanceType === 'string' ? candidate.instanceType : undefined;
    if (serverless === undefined && instanceType === undefined) return undefined;
    const instances =
      typeof candidate.initialInstanceCount === 'number' ? Math.max(1, candidate.initialInstanceCount) : 1;
    for (const combo of combinations) {
      const cpu = planServerCpu({
        variant:
          serverless === undefined
            ? {
                variantName: 'AllTraffic',
                modelName: '',
                ...(instanceType === undefined ? {} : { instanceType }),
                initialInstanceCount: 1,
              }
            : {
                variantName: 'AllTraffic',
                modelName: '',
                serverless: {
                  memorySizeMb: typeof serverless.memorySizeMb === 'number' ? serverless.memorySizeMb : 1024,
                  maxConcurrency: 1,
                },
              },
        environment: { ...modelEnvironment, ...stringRecord(candidate.environment), ...combo },
        availableCpus,
      });
      threads += cpu.workers * cpu.intraOpThreads * (serverless === undefined ? instances : 1);
    }
  }
  return threads;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, entry]) => (typeof entry === 'string' ? [[key, entry]] : [])),
  );
}

/**
 * Local runs measure the sustainable load LOCAL_DEFAULT_REPEATS times when the input does not say
 * (AWS runs: DEFAULT_REPEATS): a repeat costs seconds here, and a shared machine is noisier.
 * Only for steps that surely fit one worker invocation (a round runs as one, or is refused).
 */
function withLocalRepeats(input: unknown): unknown {
  const plan = isRecord(input) ? input.loadPlan : undefined;
  // A request budget (maxTotalRequests) gets rounds only when asked for (rounds.ts).
  if (
    !isRecord(input) ||
    !isRecord(plan) ||
    plan.repeats !== undefined ||
    plan.maxTotalRequests !== undefined
  ) {
    return input;
  }
  const seconds = (value: unknown, fallback: number): number =>
    typeof value === 'number' ? value : fallback;
  const stepSeconds = seconds(plan.warmupSeconds, 5) + seconds(plan.stepDurationSeconds, 30);
  if (!(stepSeconds <= MIN_SEGMENT_SECONDS)) return input;
  return { ...input, loadPlan: { ...plan, repeats: LOCAL_DEFAULT_REPEATS } };
}

/** `input[section].image` set to the local image when the input names none (both workflows). */
export function withLocalImage(input: unknown, section: string): unknown {
  const part = isRecord(input) ? input[section] : undefined;
  if (!isRecord(input) || !isRecord(part) || part.image !== undefined) return input;
  return { ...input, [section]: { ...part, image: LOCAL_IMAGE } };
}

/** The local model server runs ONNX models only: any other framework is an issue (both workflows). */
export function onnxOnlyIssues(field: string, framework: unknown): InputIssue[] {
  if (framework === undefined || framework === 'onnx') return [];
  return [
    {
      field,
      given: describeGiven(framework),
      expected: '"onnx" in local mode (the local model server runs ONNX models with ONNX Runtime)',
    },
  ];
}

/** Inputs valid on AWS that local mode cannot run: each named like a schema issue. */
export function localModeIssues(input: unknown, machine: LocalMachine = THIS_MACHINE): InputIssue[] {
  if (!isRecord(input)) return [];
  const framework = isRecord(input.model) ? input.model.framework : undefined;
  const issues =
    framework === 'huggingface'
      ? [huggingfaceIssue(input.model)]
      : typeof framework === 'string' && isLlmContainer(framework)
        ? [llmContainerIssue(framework)]
        : onnxOnlyIssues('model.framework', framework);
  issues.push(...localMinInstancesIssues(input, machine));
  if (input.existingEndpoint !== undefined) {
    issues.push({
      field: 'existingEndpoint',
      given: describeGiven(input.existingEndpoint),
      expected:
        'nothing in local mode (it cannot reach SageMaker endpoints); deploy the model as candidates instead',
    });
  }
  return issues;
}

/**
 * With a target, "Prove the target" and "Ramp test" deploy at least `availability.minInstances`
 * instances of the chosen candidate, each a model server of at least one thread on this machine,
 * whose quota is its thread budget (LocalModelHost `maxCpuOvercommit` × cores): a minimum above it
 * could never be deployed here, and is refused as AWS refuses one above the account's quota.
 */
function localMinInstancesIssues(input: Record<string, unknown>, machine: LocalMachine): InputIssue[] {
  const minimum = isRecord(input.availability) ? input.availability.minInstances : undefined;
  const target = isRecord(input.sla) ? input.sla.targetTps : undefined;
  if (typeof minimum !== 'number' || target === undefined || minimum <= machine.maxThreads) return [];
  return [
    {
      field: 'availability.minInstances',
      given: describeGiven(minimum),
      expected:
        `at most ${machine.maxThreads} in local mode: the proof and the ramp test deploy at least this many instances, ` +
        `each a model server of at least one thread, and this machine runs at most ${machine.maxThreads} at once ` +
        `(${machine.availableCpus} cores × ${machine.maxThreads / machine.availableCpus}); plan a larger minimum on AWS, ` +
        "where the account's quota of the instance type bounds it",
    },
  ];
}

/**
 * An LLM container (DJL LMI, TGI, vLLM) is an image for GPUs or Inferentia2 on SageMaker: the local
 * model server serves its own generative model in these containers' stream formats instead.
 */
function llmContainerIssue(framework: string): InputIssue {
  return {
    field: 'model.framework',
    given: describeGiven(framework),
    expected:
      '"onnx" in local mode: the local model server runs ONNX models only, while an LLM container runs on SageMaker ' +
      'GPU or Inferentia2 instances; examples/local-generative.json streams a generative model locally in the same ' +
      'formats. Plan this input offline with npm run plan:aws -- --input <file>, and run it on AWS: npm run -s runs -- start --input <file>',
  };
}

/**
 * A Hugging Face model runs in the Hugging Face DLC on SageMaker, which downloads a Hub model when it
 * starts: local mode has neither that container nor (by design) the internet.
 */
function huggingfaceIssue(model: unknown): InputIssue {
  const hub = isRecord(model) && isRecord(model.hub) ? model.hub.modelId : undefined;
  return {
    field: 'model.framework',
    given: describeGiven('huggingface') + (typeof hub === 'string' ? ` (Hub model ${hub})` : ''),
    expected:
      '"onnx" in local mode: the local model server runs ONNX models only, and local mode works offline, ' +
      'while a Hugging Face model runs in the Hugging Face DLC on SageMaker, which downloads a Hub model from ' +
      'the internet when it starts. Plan it offline with npm run plan:aws -- --input <file>, and run it on AWS: npm run -s runs -- start --input <file>',
  };
}
