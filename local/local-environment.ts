/**
 * Local mode's composition root: the local adapters behind the ports, the same step handlers the
 * Lambdas call, and a run of the synthesized optimization state machine over them. The CLI and the
 * end-to-end tests build on this module.
 */
import { resolve } from 'node:path';
import { EndpointFailedError } from '../handlers/contracts/errors.js';
import { s3Uri } from '../handlers/contracts/object-uri.js';
import { EndpointStatuses, type Logger } from '../handlers/ports.js';
import type { RunLoadWorkerEvent } from '../handlers/run-load-worker.js';
import { FileObjectStore } from './adapters/file-object-store.js';
import { LocalCompiler } from './adapters/local-compiler.js';
import { LocalModelHost } from './adapters/local-model-host.js';
import { createLocalTransportFactory } from './adapters/local-transport-factory.js';
import {
  type ExtractedStateMachine,
  type JsonValue,
  type RunnerEvent,
  type RunResult,
  runStateMachine,
} from './runner/index.js';
import {
  createStepHandlers,
  type LocalCleanUp,
  accountOutcome,
  type StepDependencies,
  type StepHandler,
  stepTaskResolver,
} from './step-handlers.js';

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

export interface LocalEnvironmentOptions {
  /** Folder of the local buckets (`<storeDir>/<bucket>/<key>`). @default '.local-store' */
  readonly storeDir?: string;
  /**
   * Folder of the runs: the artifacts bucket's `runs/` prefix is stored here, so a run's reports
   * land in `<runsDir>/<runId>/report.{json,md,html}` next to its other artifacts. @default 'runs'
   */
  readonly runsDir?: string;
  readonly logger: Logger;
  /** Cores the model servers may use. @default os.availableParallelism() */
  readonly availableCpus?: number;
  readonly onLoadProgress?: StepDependencies['onLoadProgress'];
}

export interface LocalEnvironment {
  readonly store: FileObjectStore;
  readonly host: LocalModelHost;
  readonly compiler: LocalCompiler;
  readonly logger: Logger;
  readonly handlers: Readonly<Record<string, StepHandler>>;
  /** Stops every model server and waits for running compilations. Idempotent. */
  close(): Promise<void>;
}

export function createLocalEnvironment(options: LocalEnvironmentOptions): LocalEnvironment {
  const { logger } = options;
  const store = new FileObjectStore({
    rootDir: options.storeDir ?? '.local-store',
    mounts: { [s3Uri(LOCAL_ARTIFACTS_BUCKET, 'runs/')]: resolve(options.runsDir ?? 'runs') },
  });
  const compiler = new LocalCompiler({ store, logger });
  const host = new LocalModelHost({
    store,
    logger,
    ...(options.availableCpus === undefined ? {} : { availableCpus: options.availableCpus }),
    compilationJobNames: () => compiler.jobNames(),
  });
  const handlers = createStepHandlers({
    store,
    host,
    compiler,
    openTransport: createLocalTransportFactory(host),
    logger,
    artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
    region: LOCAL_REGION,
    allowFileUris: true,
    measuredLocally: true,
    // What the Wait states are told; the runner shortens the waits themselves (LOCAL_WAIT_MS).
    pollSeconds: 1,
    maxPollSeconds: 1,
    loadStartDelaySeconds: 0,
    ...(options.onLoadProgress === undefined ? {} : { onLoadProgress: options.onLoadProgress }),
  });
  const runLoadWorker = handlers['run-load-worker'];
  return {
    store,
    host,
    compiler,
    logger,
    handlers: {
      ...handlers,
      'run-load-worker': failWhenServerDies(runLoadWorker, host),
    },
    async close() {
      await host.shutdown();
      await compiler.drain();
    },
  };
}

/**
 * A model server that dies during the load test fails the candidate with the reason (exit code and
 * the server's last error) and stops its load worker at once, instead of letting the worker count
 * connection errors to the end of its plan. On SageMaker the platform would replace the instance;
 * locally nothing restarts it, so the measurement is void.
 */
function failWhenServerDies(handler: StepHandler, host: LocalModelHost): StepHandler {
  return async (payload, signal) => {
    const { endpointName } = (payload as RunLoadWorkerEvent).deployment;
    const died = new AbortController();
    let failureReason: string | undefined;
    const stopWatching = host.onEndpointFailed((name, reason) => {
      if (name !== endpointName) return;
      failureReason = reason;
      died.abort(new Error(reason));
    });
    const failed = (cause?: unknown): EndpointFailedError =>
      new EndpointFailedError(
        `Endpoint ${endpointName} failed during the load test: ${failureReason ?? 'unknown reason'}`,
        { endpointName, failureReason },
        cause === undefined ? undefined : { cause },
      );
    try {
      const endpoint = await host.describeEndpoint(endpointName);
      if (endpoint?.status === EndpointStatuses.failed) {
        failureReason = endpoint.failureReason;
        throw failed();
      }
      const result = await handler(payload, AbortSignal.any([signal, died.signal]));
      if (failureReason !== undefined) throw failed();
      return result;
    } catch (error) {
      if (failureReason !== undefined && !(error instanceof EndpointFailedError)) throw failed(error);
      throw error;
    } finally {
      stopWatching();
    }
  };
}

export interface LocalRunOptions {
  readonly environment: LocalEnvironment;
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

export interface LocalRunOutcome {
  readonly result: RunResult;
  /** Set when the execution did not succeed and this module ran the clean-up step itself. */
  readonly cleanUp?: LocalCleanUp;
}

/**
 * Runs the synthesized optimization definition over the local environment. A failed execution has
 * already cleaned up through its own Catch; an aborted or timed-out one has not (its states stop
 * where they are), so every unsuccessful run ends here with the servers stopped and the same
 * clean-up step run once more (idempotent). The environment stays open: close it after.
 */
export async function runLocalOptimization(options: LocalRunOptions): Promise<LocalRunOutcome> {
  const { environment, stateMachine, runId } = options;
  const handlers = { ...environment.handlers, ...options.overrides };
  const result = await runStateMachine({
    definition: stateMachine.definition,
    resources: stateMachine.resources,
    stateMachineName: stateMachine.name,
    input: options.input,
    executionName: runId,
    resolveTask: stepTaskResolver(handlers),
    waitTimeOverrideMs: LOCAL_WAIT_MS,
    retryIntervalOverrideMs: LOCAL_RETRY_INTERVAL_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
  if (result.status === 'SUCCEEDED') return { result };
  return { result, cleanUp: await cleanUpAfter(result, environment, runId, handlers['clean-up']) };
}

async function cleanUpAfter(
  result: Exclude<RunResult, { status: 'SUCCEEDED' }>,
  environment: LocalEnvironment,
  runId: string,
  cleanUp: StepHandler | undefined,
): Promise<LocalRunOutcome['cleanUp']> {
  const why = result.status === 'FAILED' ? `${result.error}: ${result.cause}` : `run ${result.status}`;
  // Endpoints still Creating cannot be deleted (the clean-up step would wait for them): stop every
  // server first, which leaves their endpoints Failed and deletable.
  await environment.host.stopAllServers(`stopped: ${why}`);
  for (const jobName of environment.compiler.jobNames())
    await environment.compiler.stopCompilationJob(jobName);
  if (cleanUp === undefined) return { ok: false, error: 'no clean-up step handler' };
  try {
    const error =
      result.status === 'FAILED' ? { Error: result.error, Cause: result.cause } : { Error: result.status };
    const account = await cleanUp({ plan: { runId }, error }, new AbortController().signal);
    return accountOutcome(account);
  } catch (error) {
    environment.logger.error('Clean-up after the run failed', { runId, error: String(error) });
    return { ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
