import {
  InvalidRunInputError,
  OptimizationStates,
  type PlannedPayload,
  type RunLoadWorkerEvent,
  type WorkerOutcome,
} from '../../contracts/index.js';
import {
  awsSegmentSeconds,
  type Clock,
  connectionsPerWorker,
  type InvokeRequest,
  type LoadTestProgress,
  PayloadMix,
  roundPlan,
  runLoadTest,
  type WeightedRequest,
  preparePromptSet,
} from '../../load-test/index.js';
import type { Logger, ObjectStore, StreamTransportFactory, TransportFactory } from '../../ports/index.js';
import { readWorkerSegments, roundResultUri, workerResultUri } from './load-test-results.js';
import { refuseRedrive } from './redrive.js';
import type { PlannedPromptSet } from '../../contracts/index.js';

export interface RunLoadWorkerDeps {
  readonly store: ObjectStore;
  readonly openTransport: TransportFactory;
  /** Opens the transport of a plan that streams responses; the engine refuses such a plan without it. */
  readonly openStreamTransport?: StreamTransportFactory;
  /** When the worker must have returned (a Lambda's remaining time); the engine stops before. */
  readonly deadlineEpochMs?: number;
  readonly onProgress?: (event: LoadTestProgress & { readonly candidateId: string }) => void;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** The engine's time (the workflow tests run a load test on simulated time). @default systemClock */
  readonly clock?: Clock;
}

/**
 * Every payload of the run, read once per worker (never per request): one request, or a mix each
 * request draws from by weight.
 */
async function loadPayloads(
  payloads: readonly PlannedPayload[],
  store: ObjectStore,
): Promise<InvokeRequest | PayloadMix> {
  const requests = await Promise.all(
    payloads.map(async (payload): Promise<WeightedRequest> => ({
      request: {
        body: await store.getBytes(payload.uri),
        contentType: payload.contentType,
        ...(payload.accept === undefined ? {} : { accept: payload.accept }),
      },
      weight: payload.weight,
    })),
  );
  const only = requests.length === 1 ? requests[0] : undefined;
  return only === undefined ? PayloadMix.of(requests) : only.request;
}

/**
 * A prompt set, read once per worker and built as "Validate and plan" built it (the same
 * function): one group of requests per planned bucket, weighted as planned, each request drawing
 * its bucket by weight, then one of its prompts.
 */
async function loadPrompts(
  prompts: PlannedPromptSet,
  payloads: readonly PlannedPayload[],
  store: ObjectStore,
): Promise<PayloadMix> {
  // The limits were checked at planning; a body is never larger than the file that holds its prompt.
  const prepared = preparePromptSet(await store.getBytes(prompts.uri), prompts, {
    field: 'prompts.uri',
    maxBodyBytes: { bytes: Number.POSITIVE_INFINITY, limit: 'checked at planning' },
  });
  const groups = payloads.map((payload) => {
    const bucket = prepared.buckets.find((candidate) => candidate.name === payload.bucket?.name);
    return { requests: bucket?.requests ?? [], weight: payload.weight };
  });
  const changed = groups.findIndex((group, index) => group.requests.length !== payloads[index]?.weight);
  if (prepared.issues.length > 0 || changed >= 0) {
    const bucket = payloads[changed]?.bucket?.name;
    throw new InvalidRunInputError([
      {
        field: 'prompts.uri',
        given: `${prompts.uri}, changed since "Validate and plan" read it (${
          prepared.issues.length > 0
            ? `${prepared.issues.length} line(s) no longer prompts`
            : `bucket "${bucket ?? '?'}" holds ${groups[changed]?.requests.length ?? 0} prompt(s), not ${payloads[changed]?.weight ?? 0}`
        })`,
        expected:
          'the prompt set as it was planned: leave the file unchanged while its run runs, or start a new run',
      },
    ]);
  }
  return PayloadMix.of(groups);
}

/**
 * State "Run load worker": one of the candidate's N load workers, for one segment of the load
 * test. All start from the segment's shared start (`loadStartEpochMs` for the first); each writes
 * its raw result (histograms, counts) to the object store and returns a pointer, since worker
 * results can outgrow a state payload. A later segment first reads this worker's results of the
 * segments before it, to resume the schedule where they stopped. In a round (`loadRound`, after
 * the schedule: a knee probe or a repeat) it runs one step at the round's load from the round's
 * start, and writes its result under the round's index. A redriven run is refused before it
 * sends anything (redrive.ts): its shared start is past and its endpoint deleted.
 */
export async function runLoadWorker(
  event: RunLoadWorkerEvent,
  deps: RunLoadWorkerDeps,
): Promise<WorkerOutcome> {
  refuseRedrive(event, OptimizationStates.runLoadWorker);
  const { plan, deployment } = event;
  const round = deployment.loadRound;
  const segmentIndex = deployment.loadSegment?.index ?? 0;
  const startAtEpochMs = deployment.loadSegment?.startEpochMs ?? deployment.loadStartEpochMs;
  // A round is a one-step test of its own, from its own start: no segments before it.
  const previous =
    round === undefined
      ? await readWorkerSegments(deps.store, plan, event.candidateId, event.workerIndex, segmentIndex)
      : [];
  const request =
    plan.prompts === undefined
      ? await loadPayloads(plan.payloads, deps.store)
      : await loadPrompts(plan.prompts, plan.payloads, deps.store);
  const target = {
    endpointName: deployment.endpointName,
    connections: connectionsPerWorker(plan.loadPlan),
    requestTimeoutMs: plan.loadPlan.requestTimeoutMs,
  };
  // One transport, of the kind the plan reads responses with.
  const streams = plan.loadPlan.response?.mode === 'stream';
  const streamTransport = streams ? deps.openStreamTransport?.(target) : undefined;
  const transport = streams ? undefined : deps.openTransport(target);
  try {
    const result = await runLoadTest({
      plan: round === undefined ? plan.loadPlan : roundPlan(plan.loadPlan, round.load),
      sla: plan.sla,
      ...(transport === undefined ? {} : { transport }),
      ...(streamTransport === undefined ? {} : { streamTransport }),
      request,
      ...(round === undefined
        ? {
            ...(startAtEpochMs === undefined ? {} : { startAtEpochMs }),
            segment: {
              index: segmentIndex,
              seconds: plan.loadSegmentSeconds ?? awsSegmentSeconds(plan.loadPlan),
              previous,
            },
          }
        : { startAtEpochMs: round.startEpochMs }),
      workerIndex: event.workerIndex,
      ...(deps.deadlineEpochMs === undefined ? {} : { deadlineEpochMs: deps.deadlineEpochMs }),
      ...(deps.signal === undefined ? {} : { signal: deps.signal }),
      ...(deps.clock === undefined ? {} : { clock: deps.clock }),
      ...(deps.onProgress === undefined
        ? {}
        : {
            onProgress: (progress: LoadTestProgress) =>
              deps.onProgress?.({ ...progress, candidateId: event.candidateId }),
          }),
    });
    const resultUri =
      round === undefined
        ? workerResultUri(plan, event.candidateId, event.workerIndex, segmentIndex)
        : roundResultUri(plan, event.candidateId, event.workerIndex, round.index);
    await deps.store.putBytes(
      resultUri,
      new TextEncoder().encode(JSON.stringify(result)),
      'application/json',
    );
    deps.logger.info('Load worker finished', {
      candidateId: event.candidateId,
      workerIndex: event.workerIndex,
      ...(round === undefined ? { segmentIndex } : { round }),
      steps: result.steps.length,
      stoppedBecause: result.stoppedBecause,
    });
    return { workerIndex: event.workerIndex, resultUri, stoppedBecause: result.stoppedBecause };
  } finally {
    await Promise.all([transport?.close?.(), streamTransport?.close?.()]);
  }
}
