import type { CleanUpAccount } from '../../core/contracts/clean-up-account.js';
import type { OptimizationStepName, RunSummary } from '../../core/contracts/optimization-state.js';
import type {
  EndpointAnswerer,
  EndpointMetricsReader,
  InvocationsPerInstanceReader,
  ObjectStore,
} from '../../core/ports/index.js';
import { LocalInstanceQuotas } from '../../local/adapters/local-instance-quotas.js';
import { type AslDefinition, walkStates } from '../../local/runner/asl.js';
import {
  runStateMachine,
  type JsonValue,
  type RunnerEvent,
  type RunResult,
} from '../../local/runner/index.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import {
  createStepHandlers,
  type StepDependencies,
  type StepHandler,
  stepTaskResolver,
} from '../../local/environment/step-handlers.js';
import type { SynthesizedWorkflows } from '../../local/synthesis/synthesized-workflows.js';
import { type FakeSageMaker, stubTransports, type StubEndpointBehaviour } from '../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../support/memory-object-store.js';
import { loadWorkerOnSimulatedTime } from '../support/simulated-load.js';

export const MODEL_URI = 's3://user-models/cnn/model.onnx';
export const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
export const ARTIFACTS_BUCKET = 'mso-artifacts';
export const SERVER_IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/mso-model-server:1';

/** A small, fast run input: two load steps of 0.2 s each (simulated time: see runOptimization). */
export function optimizationInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      // Uncompiled ONNX has no first-party SageMaker image: the project's model server image.
      image: SERVER_IMAGE,
    },
    payload: { uri: PAYLOAD_URI },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { id: 'cpu', instanceType: 'ml.c5.xlarge' },
      { id: 'cpu-neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
      { id: 'gpu', instanceType: 'ml.g4dn.xlarge' },
    ],
    loadPlan: {
      model: 'closed',
      steps: [1, 2],
      warmupSeconds: 0,
      stepDurationSeconds: 0.2,
      stopAtPlateau: false,
    },
    sla: { p95LatencyMs: 50 },
    ...overrides,
  };
}

export interface OptimizationRun {
  readonly result: RunResult;
  readonly events: RunnerEvent[];
  readonly store: MemoryObjectStore;
  /** Names of the states entered, in order. */
  readonly statesEntered: string[];
}

/**
 * Runs the synthesized optimization state machine locally over the real step handlers, with an
 * in-memory object store, a fake SageMaker and stub endpoints.
 */
export async function runOptimization(options: {
  readonly workflows: SynthesizedWorkflows;
  readonly sagemaker: FakeSageMaker;
  /** Round-tripped through JSON, as Step Functions would receive it (undefined fields vanish). */
  readonly input: unknown;
  readonly runId?: string;
  readonly endpoints?: (endpointName: string) => StubEndpointBehaviour;
  /** Replace a step's handler, e.g. to make it fail after resources exist. */
  readonly override?: Readonly<Partial<Record<OptimizationStepName, StepHandler>>>;
  /** Replace steps' handlers with wrappers of the real ones (a spy, a fault on some payloads). */
  readonly wrap?: (
    handlers: Readonly<Record<OptimizationStepName, StepHandler>>,
  ) => Readonly<Partial<Record<OptimizationStepName, StepHandler>>>;
  readonly store?: (store: MemoryObjectStore) => ObjectStore;
  readonly metrics?: EndpointMetricsReader;
  /** How the proof's requests spread over its instances. @default none */
  readonly invocations?: InvocationsPerInstanceReader;
  /** The ramp test's Application Auto Scaling (test/support/fake-realtime-scaling.ts). @default none */
  readonly realtimeScaling?: StepDependencies['realtimeScaling'];
  /** Every Retry's wait, in place of the definition's (jitter included). @default 1 */
  readonly retryIntervalOverrideMs?: number;
  /** The schedule of one load worker invocation, to run a short load test in segments. @default as on AWS */
  readonly loadSegmentSeconds?: number;
  /** The account's endpoint instance quotas as planning reads them (Service Quotas). @default none read */
  readonly instanceQuotas?: Readonly<Record<string, number>>;
  /** `$$.Execution.RedriveCount` at each read, to stand for a redrive mid-run. @default always 0 */
  readonly redriveCount?: () => number;
  /**
   * Runs only one Map iteration's or Parallel branch's states (`within`), from `at`, with `input`
   * as its state: what a redrive re-runs of an iteration or branch that stopped there (the local
   * engine cannot redrive). `input` replaces the run input. @default the whole run
   */
  readonly resume?: { readonly within: string; readonly at: string };
  /**
   * How long after its shared start a load worker invocation starts, in simulated time (a worker
   * throttled by Lambda and retried starts late). @default always 0: every worker on time
   */
  readonly workerLateMs?: (event: RunLoadWorkerEvent) => number;
  /** What the endpoints answer the output-quality guard. @default none (a guarded run records no answers) */
  readonly answerer?: EndpointAnswerer;
}): Promise<OptimizationRun> {
  const store = new MemoryObjectStore().seed(MODEL_URI, 'onnx-bytes').seed(PAYLOAD_URI, '{"inputs":[[0]]}');
  const endpoints = options.endpoints ?? (() => ({ latencyMs: 2 }));
  const deps: StepDependencies = {
    store: options.store?.(store) ?? store,
    host: options.sagemaker,
    compiler: options.sagemaker,
    openTransport: stubTransports(endpoints),
    logger: silentLogger,
    artifactsBucket: ARTIFACTS_BUCKET,
    region: 'us-east-1',
    allowFileUris: false,
    measuredLocally: false,
    pollSeconds: 30,
    maxPollSeconds: 120,
    loadStartDelaySeconds: 0,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.answerer === undefined ? {} : { answerer: options.answerer }),
    ...(options.invocations === undefined ? {} : { invocations: options.invocations }),
    ...(options.realtimeScaling === undefined ? {} : { realtimeScaling: options.realtimeScaling }),
    ...(options.loadSegmentSeconds === undefined ? {} : { loadSegmentSeconds: options.loadSegmentSeconds }),
    ...(options.instanceQuotas === undefined
      ? {}
      : { instanceQuotas: new LocalInstanceQuotas(options.instanceQuotas) }),
  };
  // The load windows run on simulated time (test/support/simulated-load.ts): the subject here is
  // the workflow's path, requests and reports, which must not depend on how busy the machine is.
  const real = {
    ...createStepHandlers(deps),
    'run-load-worker': loadWorkerOnSimulatedTime(
      deps,
      (clock) => ({ openTransport: stubTransports(endpoints, clock) }),
      options.workerLateMs,
    ),
  };
  const handlers = { ...real, ...options.wrap?.(real), ...options.override };
  const events: RunnerEvent[] = [];
  const { optimization } = options.workflows;
  const result = await runStateMachine({
    definition:
      options.resume === undefined
        ? optimization.definition
        : resumedPart(optimization.definition, options.resume.within, options.resume.at),
    resources: optimization.resources,
    input: JSON.parse(JSON.stringify(options.input)) as JsonValue,
    executionName: options.runId ?? 'test-run',
    resolveTask: stepTaskResolver(handlers),
    waitTimeOverrideMs: 1,
    retryIntervalOverrideMs: options.retryIntervalOverrideMs ?? 1,
    onEvent: (event) => events.push(event),
    ...(options.redriveCount === undefined ? {} : { redriveCount: options.redriveCount }),
  });
  const statesEntered = events.flatMap((event) => (event.type === 'StateEntered' ? [event.stateName] : []));
  return { result, events, store, statesEntered };
}

/**
 * The states of a Map iteration or of a Parallel's (single) branch that a run started at `at`
 * can reach (the engine refuses a definition with states it cannot reach).
 */
function resumedPart(definition: AslDefinition, within: string, at: string): AslDefinition {
  const found = [...walkStates(definition)].find((visited) => visited.name === within)?.state;
  const part =
    found?.Type === 'Parallel' && Array.isArray(found.Branches)
      ? found.Branches[0]
      : (found?.ItemProcessor ?? found?.Iterator);
  const states = (part as { States?: AslDefinition['States'] } | undefined)?.States ?? {};
  if (states[at] === undefined) throw new Error(`No state "${at}" in an iteration or branch of "${within}"`);
  const reached = new Set<string>();
  const visit = (name: unknown): void => {
    if (typeof name !== 'string' || reached.has(name)) return;
    reached.add(name);
    const state = states[name] as Record<string, unknown> | undefined;
    const choices = Array.isArray(state?.Choices) ? state.Choices : [];
    const catchers = Array.isArray(state?.Catch) ? state.Catch : [];
    for (const next of [
      state?.Next,
      state?.Default,
      ...[...choices, ...catchers].map((c) => (c as { Next?: unknown }).Next),
    ]) {
      visit(next);
    }
  };
  visit(at);
  return {
    StartAt: at,
    States: Object.fromEntries(Object.entries(states).filter(([name]) => reached.has(name))),
  };
}

export function readJson(store: MemoryObjectStore, uri: string): unknown {
  const object = store.objects.get(uri);
  if (object === undefined) throw new Error(`Nothing stored at ${uri}`);
  return JSON.parse(new TextDecoder().decode(object.body));
}

/** A successful run's output: the run summary with the clean-up's account. */
export type SucceededRun = RunSummary & { readonly cleanUp: CleanUpAccount };

/** The output of a run that must have succeeded; the whole result in the error otherwise. */
export function succeeded(result: RunResult): SucceededRun {
  if (result.status !== 'SUCCEEDED') throw new Error(`Run ${result.status}: ${JSON.stringify(result)}`);
  return result.output as unknown as SucceededRun;
}
