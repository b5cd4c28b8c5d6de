import type {
  EndpointInstanceLimit,
  OptimizationStepEventsByName,
  OptimizationStepName,
} from '../../core/contracts/index.js';
import { aggregateLoadTest } from '../../core/steps/optimization/aggregate-load-test.js';
import { cleanUpOptimizationRun } from '../../core/steps/optimization/clean-up.js';
import { deleteCandidate } from '../../core/steps/optimization/delete-candidate.js';
import { checkCompilation } from '../../core/steps/optimization/check-compilation.js';
import { startCompilation } from '../../core/steps/optimization/start-compilation.js';
import { CleanUpStatuses, DEFAULT_POLL_SCHEDULE } from '../../core/contracts/index.js';
import { checkEndpoint } from '../../core/steps/optimization/check-endpoint.js';
import { deployCandidate } from '../../core/steps/optimization/deploy-candidate.js';
import type { Clock, LoadTestProgress } from '../../core/load-test/index.js';
import { packageModel } from '../../core/steps/optimization/package-model.js';
import type {
  EndpointInstanceSeriesReader,
  EndpointMetricsReader,
  InstanceQuotaReader,
  InvocationsPerInstanceReader,
  Logger,
  ModelCompiler,
  ModelOptimizer,
  ModelHost,
  EndpointAnswerer,
  ObjectStore,
  RealtimeScalingApplier,
  ScalingRegistry,
  StreamTransportFactory,
  TransportFactory,
} from '../../core/ports/index.js';
import { qualityPass } from '../../core/steps/optimization/quality-pass.js';
import { recommend } from '../../core/steps/optimization/recommend.js';
import { rampScaling } from '../../core/steps/optimization/ramp-scaling.js';
import { recordProof } from '../../core/steps/optimization/record-proof.js';
import { recordRamp } from '../../core/steps/optimization/record-ramp.js';
import { runLoadWorker } from '../../core/steps/optimization/run-load-worker.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../core/steps/optimization/validate-and-plan.js';
import { LocalInstanceQuotas } from '../adapters/index.js';
import type { TaskResolver } from '../runner/index.js';

/** What the optimization steps run on, outside Lambda: local adapters, or fakes in tests. */
export interface StepDependencies {
  readonly store: ObjectStore;
  readonly host: ModelHost;
  readonly compiler: ModelCompiler;
  /** Runs the plan's optimization jobs; without it, a plan with optimizations fails at their start. */
  readonly optimizer?: ModelOptimizer;
  readonly openTransport: TransportFactory;
  /**
   * The output-quality guard's requests (one answer, its body kept). Without it, a run with a
   * quality block fails at "Record candidate answers", which the workflow records as an unjudged
   * candidate. @default none
   */
  readonly answerer?: EndpointAnswerer;
  /** For plans that stream responses (`loadPlan.response`); such a plan fails without it. */
  readonly openStreamTransport?: StreamTransportFactory;
  readonly logger: Logger;
  readonly artifactsBucket: string;
  readonly region: string;
  readonly allowFileUris: boolean;
  readonly measuredLocally: boolean;
  /** The most instances one endpoint can have where the run measures (LocalModelHost's). @default none */
  readonly endpointLimit?: EndpointInstanceLimit;
  /** Poll intervals as the Wait states see them; the runner shortens the waits themselves. */
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly loadStartDelaySeconds: number;
  /**
   * The schedule one load worker invocation runs: shorter than on AWS in tests, so a short load
   * test runs as several segments. @default as on AWS (awsSegmentSeconds)
   */
  readonly loadSegmentSeconds?: number;
  readonly now?: () => Date;
  /** The file an object is, seen from a report's folder: local reports show files, not `s3://` URIs. */
  readonly localFileOf?: (uri: string, reportUri: string) => string | undefined;
  /** The endpoints' own metrics over each test window, for the report. */
  readonly metrics?: EndpointMetricsReader;
  /** How the proof's requests spread over the instances (locally, the routing front's counts). */
  readonly invocations?: InvocationsPerInstanceReader;
  /**
   * The ramp test's autoscaling and instance counts (locally the host: LocalModelHost implements
   * all three). Without it, a ramp fails at "Apply ramp scaling policy" and is recorded as failed.
   */
  readonly realtimeScaling?: RealtimeScalingApplier & ScalingRegistry & EndpointInstanceSeriesReader;
  /** Where `realtimeScaling`'s instance counts come from, for the report. @default "from the local endpoint's front" */
  readonly instanceSeriesSource?: string;
  /** The instance quotas planning checks. @default none (local/adapters/local-instance-quotas.ts) */
  readonly instanceQuotas?: InstanceQuotaReader;
  /** The live prices and instance facts planning reads. @default the recorded tables */
  readonly market?: ValidateAndPlanDeps['market'];
  readonly onLoadProgress?: (event: LoadTestProgress & { readonly candidateId: string }) => void;
  /**
   * The load engine's time: tests run a load worker on simulated time, so that its figures, and
   * the path they decide, do not depend on how busy the machine is. @default the system clock
   */
  readonly clock?: Clock;
}

/** What a ramp meets without `realtimeScaling`: every call fails, naming what is missing. */
const NO_REALTIME_SCALING: RealtimeScalingApplier & ScalingRegistry & EndpointInstanceSeriesReader = {
  applyRealtimeScaling: () => Promise.reject(new Error(MISSING_SCALING)),
  deregisterEndpointVariant: () => Promise.resolve(false),
  configureAsyncScaling: () => Promise.reject(new Error(MISSING_SCALING)),
  instanceSeries: () => Promise.reject(new Error(MISSING_SCALING)),
};
const MISSING_SCALING = 'no real-time autoscaling here: the step dependencies have no realtimeScaling';

/** What a quality pass meets without `answerer`: every request fails, naming what is missing. */
const NO_ANSWERER: EndpointAnswerer = {
  answer: () =>
    Promise.reject(new Error('no endpoint answerer here: the step dependencies have no answerer')),
};

/** A step's core function as the local runner calls it: the state's payload in, the result out. */
export type StepHandler = (payload: unknown, signal: AbortSignal) => Promise<unknown>;

/**
 * A workflow's local handlers as written: each step name's handler takes that step's event
 * (`Events`, the workflow's registry by name), so a handler calls its core function without a cast.
 */
export type StepHandlerTable<Events> = {
  readonly [Name in keyof Events]: (payload: Events[Name], signal: AbortSignal) => Promise<unknown>;
};

/**
 * The runner's view of a handler table. The runner hands each handler the JSON its Task's
 * Parameters built, which the type-check held to the step's event (workflows/task-parameters.ts):
 * this is the one place that JSON is taken as the event, as the Lambda runtime takes it for a
 * `defineStep` handler.
 */
export function runnerHandlers<Events>(
  table: StepHandlerTable<Events>,
): Readonly<Record<keyof Events, StepHandler>> {
  return table as Readonly<Record<keyof Events, StepHandler>>;
}

/** Outcome of the clean-up a local environment runs after an unsuccessful execution. */
export type LocalCleanUp = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * What a local clean-up step's account (core/contracts/clean-up-account.ts) means for the CLI:
 * ok when it left nothing, else its message, which names what is left and why.
 */
export function accountOutcome(account: unknown): LocalCleanUp {
  const { status, message } = (account ?? {}) as { status?: unknown; message?: unknown };
  if (status === CleanUpStatuses.complete) return { ok: true };
  return { ok: false, error: typeof message === 'string' ? message : `clean-up ended ${String(status)}` };
}

/**
 * The runner's task resolver over step handlers: each Task state calls the handler of the step
 * its Lambda carries in `STEP_NAME`; a state without one fails naming the steps there are.
 */
export function stepTaskResolver(handlers: Readonly<Record<string, StepHandler>>): TaskResolver {
  return (info) => {
    const handler = info.stepName === undefined ? undefined : handlers[info.stepName];
    if (handler === undefined) {
      throw new Error(
        `No local handler for state "${info.stateName}": got step ${info.stepName ?? '(none)'}, expected one of ${Object.keys(handlers).join(', ')}`,
      );
    }
    return (input, context) => handler(input, context.signal);
  };
}

/**
 * The same core functions the Lambdas call (`lambdas/<step>.ts`), keyed by the step name that
 * each Lambda carries in `STEP_NAME`: one name per step across layers. Typed by the registry
 * (OPTIMIZATION_STEPS), so a step without a local handler, or a misspelt key, fails the
 * type-check. Each handler takes its step's event (OptimizationStepEvents), the one the workflow's
 * Parameters are type-checked against, so it calls its core function without a cast.
 */
export function createStepHandlers(
  deps: StepDependencies,
): Readonly<Record<OptimizationStepName, StepHandler>> {
  const now = deps.now ?? (() => new Date());
  const nowEpochMs = (): number => now().getTime();
  // As the Lambdas read them (lambdas/wiring.ts): the compilation steps get no load start delay.
  const compilationTimings = {
    pollSeconds: deps.pollSeconds,
    maxPollSeconds: deps.maxPollSeconds,
    nowEpochMs,
  };
  const timings = { ...compilationTimings, loadStartDelaySeconds: deps.loadStartDelaySeconds };
  const { store, host, compiler, logger } = deps;
  const optimizer = deps.optimizer === undefined ? {} : { optimizer: deps.optimizer };
  const realtimeScaling = deps.realtimeScaling ?? NO_REALTIME_SCALING;
  return runnerHandlers<OptimizationStepEventsByName>({
    'validate-and-plan': (payload) =>
      validateAndPlan(payload, {
        store,
        artifactsBucket: deps.artifactsBucket,
        allowFileUris: deps.allowFileUris,
        // The history quota is AWS's: count the polls the deployed workflow makes by default, not
        // the local runner's shortened ones.
        polling: { endpoint: DEFAULT_POLL_SCHEDULE, compilation: DEFAULT_POLL_SCHEDULE },
        ...(deps.loadSegmentSeconds === undefined ? {} : { loadSegmentSeconds: deps.loadSegmentSeconds }),
        instanceQuotas: deps.instanceQuotas ?? new LocalInstanceQuotas(),
        ...(deps.market === undefined ? {} : { market: deps.market }),
        logger,
      }),
    'package-model': (payload) => packageModel(payload, { store, logger }),
    'start-compilation': (payload) =>
      startCompilation(payload, {
        compiler,
        ...optimizer,
        logger,
        ...compilationTimings,
      }),
    'check-compilation': (payload) =>
      checkCompilation(payload, {
        compiler,
        ...optimizer,
        logger,
        ...compilationTimings,
      }),
    'deploy-candidate': (payload) =>
      deployCandidate(payload, { host, region: deps.region, logger, ...timings }),
    'check-endpoint': (payload) => checkEndpoint(payload, { host, logger, ...timings }),
    'run-load-worker': (payload, signal) =>
      runLoadWorker(payload, {
        store,
        openTransport: deps.openTransport,
        ...(deps.openStreamTransport === undefined ? {} : { openStreamTransport: deps.openStreamTransport }),
        logger,
        signal,
        ...(deps.onLoadProgress === undefined ? {} : { onProgress: deps.onLoadProgress }),
        ...(deps.clock === undefined ? {} : { clock: deps.clock }),
      }),
    'aggregate-load-test': (payload) =>
      aggregateLoadTest(payload, {
        store,
        logger,
        nowEpochMs,
        loadStartDelaySeconds: deps.loadStartDelaySeconds,
      }),
    'delete-candidate': (payload) => deleteCandidate(payload, { host, compiler, logger }),
    recommend: (payload) =>
      recommend(payload, {
        store,
        logger,
        measuredLocally: deps.measuredLocally,
        ...(deps.endpointLimit === undefined ? {} : { endpointLimit: deps.endpointLimit }),
        region: deps.region,
        now,
        ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
        ...(deps.invocations === undefined ? {} : { invocations: deps.invocations }),
        ...(deps.localFileOf === undefined ? {} : { localFileOf: deps.localFileOf }),
      }),
    'record-proof': (payload) =>
      recordProof(payload, {
        store,
        logger,
        ...(deps.invocations === undefined ? {} : { invocations: deps.invocations }),
      }),
    'ramp-scaling': (payload) =>
      rampScaling(payload, {
        applier: realtimeScaling,
        registry: realtimeScaling,
        logger,
        nowEpochMs,
        loadStartDelaySeconds: deps.loadStartDelaySeconds,
      }),
    'record-ramp': (payload) =>
      recordRamp(payload, {
        store,
        logger,
        series: realtimeScaling,
        seriesSource:
          deps.instanceSeriesSource ?? 'from the local endpoint’s front (in service and starting)',
      }),
    'quality-pass': (payload) =>
      qualityPass(payload, { store, answerer: deps.answerer ?? NO_ANSWERER, logger }),
    'clean-up': (payload) =>
      cleanUpOptimizationRun(payload, {
        host,
        compiler,
        store,
        ...optimizer,
        logger,
        ...(deps.realtimeScaling === undefined ? {} : { scaling: deps.realtimeScaling }),
      }),
  });
}
