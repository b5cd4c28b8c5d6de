/**
 * Local mode's composition root: the local adapters behind the ports, the same step handlers the
 * Lambdas call, and a run of the synthesized optimization state machine over them. The CLI and the
 * end-to-end tests build on this module.
 */
import { EndpointFailedError } from '../../core/contracts/index.js';
import { EndpointStatuses } from '../../core/ports/index.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/index.js';
import {
  LocalCompiler,
  LocalOptimizer,
  LocalInvocationsPerInstance,
  createHttpEndpointAnswerer,
  createLocalStreamTransportFactory,
  createLocalTransportFactory,
} from '../adapters/index.js';
import { LocalModelHost } from '../platform/index.js';
import { reportFileOf } from './report-files.js';
import { createStepHandlers, type StepDependencies, type StepHandler } from './step-handlers.js';
import {
  createLocalStore,
  LOCAL_ARTIFACTS_BUCKET,
  LOCAL_REGION,
  type LocalEnvironmentBaseOptions,
  type LocalWorkflowEnvironment,
  type LocalWorkflowOutcome,
  type LocalWorkflowRunOptions,
  runLocalWorkflow,
} from './workflow-environment.js';

/** Reports land in `<runsDir>/<runId>/report.{json,md,html}` (see `LocalStoreOptions`). */
export interface LocalEnvironmentOptions extends LocalEnvironmentBaseOptions {
  readonly onLoadProgress?: StepDependencies['onLoadProgress'];
}

/** `close()` also waits for running compilations. */
export interface LocalEnvironment extends LocalWorkflowEnvironment {
  readonly compiler: LocalCompiler;
  readonly optimizer: LocalOptimizer;
}

export function createLocalEnvironment(options: LocalEnvironmentOptions): LocalEnvironment {
  const { logger } = options;
  const store = createLocalStore(options);
  const compiler = new LocalCompiler({ store, logger });
  const optimizer = new LocalOptimizer({ store, logger });
  const host = new LocalModelHost({
    store,
    logger,
    ...(options.availableCpus === undefined ? {} : { availableCpus: options.availableCpus }),
    compilationJobNames: () => compiler.jobNames(),
    optimizationJobNames: () => optimizer.jobNames(),
  });
  const handlers = createStepHandlers({
    store,
    host,
    compiler,
    optimizer,
    openTransport: createLocalTransportFactory(host),
    openStreamTransport: createLocalStreamTransportFactory(host),
    answerer: createHttpEndpointAnswerer(host),
    logger,
    artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
    region: LOCAL_REGION,
    allowFileUris: true,
    measuredLocally: true,
    endpointLimit: host.endpointInstanceLimit(),
    // What the Wait states are told; the runner shortens the waits themselves (LOCAL_WAIT_MS).
    pollSeconds: 1,
    maxPollSeconds: 1,
    loadStartDelaySeconds: 0,
    invocations: new LocalInvocationsPerInstance(host),
    // The ramp test's policy, on the local endpoint's front: applied, ticking, deregistered.
    realtimeScaling: host,
    ...(options.onLoadProgress === undefined ? {} : { onLoadProgress: options.onLoadProgress }),
    localFileOf: reportFileOf(store),
  });
  const runLoadWorker = handlers['run-load-worker'];
  return {
    store,
    host,
    compiler,
    optimizer,
    logger,
    handlers: {
      ...handlers,
      'run-load-worker': failWhenServerDies(runLoadWorker, host),
    },
    async close() {
      await host.shutdown();
      await compiler.drain();
      await optimizer.drain();
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

export interface LocalRunOptions extends LocalWorkflowRunOptions {
  readonly environment: LocalEnvironment;
}

export type LocalRunOutcome = LocalWorkflowOutcome;

/**
 * Runs the synthesized optimization definition over the local environment. A failed execution has
 * already cleaned up through its own Catch; an aborted or timed-out one has not (its states stop
 * where they are), so every unsuccessful run ends here with the servers and compilations stopped
 * and the same clean-up step run once more (idempotent). The environment stays open: close it after.
 */
export function runLocalOptimization(options: LocalRunOptions): Promise<LocalRunOutcome> {
  const { environment, runId } = options;
  return runLocalWorkflow(options, {
    handlers: environment.handlers,
    logger: environment.logger,
    cleanUpStep: 'clean-up',
    // Every unsuccessful run, a failed one included (its Catch cleaned up already; the step is idempotent).
    needsCleanUp: () => true,
    stopRunning: async (result) => {
      const why = result.status === 'FAILED' ? `${result.error}: ${result.cause}` : `run ${result.status}`;
      // Endpoints still Creating cannot be deleted (the clean-up step would wait for them): stop
      // every server first, which leaves their endpoints Failed and deletable.
      await environment.host.stopAllServers(`stopped: ${why}`);
      for (const jobName of environment.compiler.jobNames())
        await environment.compiler.stopCompilationJob(jobName);
      for (const jobName of environment.optimizer.jobNames())
        await environment.optimizer.stopOptimizationJob(jobName);
    },
    cleanUpPayload: (result) => ({
      plan: { runId },
      error:
        result.status === 'FAILED' ? { Error: result.error, Cause: result.cause } : { Error: result.status },
    }),
  });
}
