/**
 * The skeleton both local environments share (`local/environment/optimization-environment.ts` for the optimization
 * workflow, `local/environment/async-environment.ts` for the async one): the local buckets, and a run of a
 * synthesized definition on the local runner that ends with the clean-up step run locally when
 * the execution could not run it itself. Each environment supplies its hooks: its handler map,
 * which results need the local clean-up, what to stop first and the clean-up step's payload.
 */
import { resolve } from 'node:path';
import { describeError, s3Uri } from '../../core/contracts/index.js';
import type { Logger } from '../../core/ports/index.js';
import { FileObjectStore, OverlayObjectStore } from '../platform/index.js';
import type { LocalModelHost } from '../platform/index.js';
import {
  type ExtractedStateMachine,
  type JsonValue,
  type RunnerEvent,
  type RunResult,
  runStateMachine,
  type TaskTokenBroker,
} from '../runner/index.js';
import { accountOutcome, type LocalCleanUp, type StepHandler, stepTaskResolver } from './step-handlers.js';

/** The local artifacts bucket: `s3://local-artifacts/...` URIs live in the local store. */
export const LOCAL_ARTIFACTS_BUCKET = 'local-artifacts';
/** Matches the stand-in region the local synthesis uses; local mode never resolves images by region. */
export const LOCAL_REGION = 'local-1';

/**
 * Waits and retry pauses of the definition, shortened by the runner (never by a second definition):
 * a local endpoint is in service in about a second, not in minutes.
 */
export const LOCAL_WAIT_MS = 200;
export const LOCAL_RETRY_INTERVAL_MS = 250;

export interface LocalStoreOptions {
  /** Folder of the local buckets (`<storeDir>/<bucket>/<key>`). @default '.local-store' */
  readonly storeDir?: string;
  /**
   * Folder of the runs: the artifacts bucket's `runs/` prefix is stored here, so a run's reports
   * land in `<runsDir>/<runId>/…` next to its other artifacts. @default 'runs'
   */
  readonly runsDir?: string;
  /**
   * Reads see the files, writes stay in memory (`OverlayObjectStore`): what `--plan` plans over,
   * so that it creates nothing. @default false
   */
  readonly writesInMemory?: boolean;
}

/** What both environments are built from. */
export interface LocalEnvironmentBaseOptions extends LocalStoreOptions {
  readonly logger: Logger;
  /** Cores the model servers may use. @default os.availableParallelism() */
  readonly availableCpus?: number;
}

/** What both environments offer: the local buckets, the model host, the step handlers. */
export interface LocalWorkflowEnvironment {
  readonly store: FileObjectStore;
  readonly host: LocalModelHost;
  readonly logger: Logger;
  readonly handlers: Readonly<Record<string, StepHandler>>;
  /** Stops every model server (and what else the workflow runs). Idempotent. */
  close(): Promise<void>;
}

/** The local buckets, with the artifacts bucket's `runs/` prefix mounted on the runs folder. */
export function createLocalStore(options: LocalStoreOptions): FileObjectStore {
  const layout = {
    rootDir: options.storeDir ?? '.local-store',
    mounts: { [s3Uri(LOCAL_ARTIFACTS_BUCKET, 'runs/')]: resolve(options.runsDir ?? 'runs') },
  };
  return options.writesInMemory === true ? new OverlayObjectStore(layout) : new FileObjectStore(layout);
}

/** What every local run options carry, whichever the workflow. */
export interface LocalWorkflowRunOptions {
  readonly stateMachine: ExtractedStateMachine;
  /** The run input, as Step Functions would receive it (JSON). */
  readonly input: JsonValue;
  readonly runId: string;
  /** Aborting it aborts the execution (Ctrl-C); clean-up then runs here. */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: RunnerEvent) => void;
  /** Replaces step handlers by step name (tests: make a step fail). */
  readonly overrides?: Readonly<Record<string, StepHandler>>;
}

/** An execution that did not succeed. */
export type UnsuccessfulRun = Exclude<RunResult, { status: 'SUCCEEDED' }>;

/** What a workflow tells the skeleton about its run and its clean-up. */
export interface LocalWorkflowHooks {
  /** The environment's step handlers (the run's overrides win over them). */
  readonly handlers: Readonly<Record<string, StepHandler>>;
  readonly logger: Logger;
  /** The runner's task tokens, for a definition with `.waitForTaskToken` tasks. */
  readonly taskTokens?: TaskTokenBroker;
  /** Multiplies TimeoutSeconds/HeartbeatSeconds of the definition. @default 1 */
  readonly timeoutScale?: number;
  /** The step that deletes the run's resources (its handler's name). */
  readonly cleanUpStep: string;
  /** Whether this unsuccessful execution left its clean-up undone (the definition's Catch did not run it). */
  needsCleanUp(result: UnsuccessfulRun): boolean;
  /** Stops what runs on: servers, compilations (an endpoint still Creating cannot be deleted). */
  stopRunning(result: UnsuccessfulRun): Promise<void>;
  /** The clean-up step's payload; `undefined`: the run created nothing to clean up. */
  cleanUpPayload(result: UnsuccessfulRun): unknown;
}

export interface LocalWorkflowOutcome {
  readonly result: RunResult;
  /** Set when the execution did not succeed and the skeleton ran the clean-up step itself. */
  readonly cleanUp?: LocalCleanUp;
}

/**
 * Runs a synthesized definition over step handlers, with the waits shortened. An aborted or
 * timed-out execution leaves its states where they were, so (when the hooks say so) everything
 * still running is stopped and the run's clean-up step runs once more (it is idempotent).
 */
export async function runLocalWorkflow(
  options: LocalWorkflowRunOptions,
  hooks: LocalWorkflowHooks,
): Promise<LocalWorkflowOutcome> {
  const handlers = { ...hooks.handlers, ...options.overrides };
  const { stateMachine } = options;
  const result = await runStateMachine({
    definition: stateMachine.definition,
    resources: stateMachine.resources,
    stateMachineName: stateMachine.name,
    input: options.input,
    executionName: options.runId,
    resolveTask: stepTaskResolver(handlers),
    waitTimeOverrideMs: LOCAL_WAIT_MS,
    retryIntervalOverrideMs: LOCAL_RETRY_INTERVAL_MS,
    ...(hooks.taskTokens === undefined ? {} : { taskTokens: hooks.taskTokens }),
    ...(hooks.timeoutScale === undefined ? {} : { timeoutScale: hooks.timeoutScale }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
  if (result.status === 'SUCCEEDED' || !hooks.needsCleanUp(result)) return { result };
  await hooks.stopRunning(result);
  const payload = hooks.cleanUpPayload(result);
  if (payload === undefined) return { result, cleanUp: { ok: true } };
  const cleanUp = handlers[hooks.cleanUpStep];
  if (cleanUp === undefined)
    return { result, cleanUp: { ok: false, error: `no ${hooks.cleanUpStep} step handler` } };
  try {
    return { result, cleanUp: accountOutcome(await cleanUp(payload, new AbortController().signal)) };
  } catch (error) {
    hooks.logger.error('Clean-up after the run failed', {
      runId: options.runId,
      error: describeError(error),
    });
    return { result, cleanUp: { ok: false, error: describeError(error) } };
  }
}
