import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import type { RunLoadWorkerEvent } from '../../../../core/contracts/optimization-state.js';
import type { WorkerResult } from '../../../../core/load-test/index.js';
import type { StreamTransportFactory, TransportFactory } from '../../../../core/ports/index.js';
import { runLoadWorker } from '../../../../core/steps/optimization/run-load-worker.js';
import { stubTransports } from '../../../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { SAMPLE_LOAD_PLAN, SAMPLE_SLA } from '../../../../bench/fixtures/sample-report.js';

const RUN_ID = 'nightly-2026-11-22';
const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
const ENDPOINT = 'mso-nightly-2026-11-22-ab12cd34-ep-c1';

/**
 * Worker 1 of 2, one short step: enough to measure, short enough for a unit test. The SLA is loose:
 * these tests are about what the worker writes and returns, and real timers on a loaded machine
 * can push a 2 ms stub's p95 past a tight one (the engine's SLA logic has its own clocked tests).
 */
const EVENT: RunLoadWorkerEvent = {
  plan: {
    runId: RUN_ID,
    artifactsBucket: 'mso-artifacts',
    payloads: [{ uri: PAYLOAD_URI, contentType: 'application/json', weight: 1, sizeBytes: 2 }],
    loadPlan: { ...SAMPLE_LOAD_PLAN, steps: [4], workers: 2, warmupSeconds: 0, stepDurationSeconds: 0.2 },
    sla: { ...SAMPLE_SLA, p95LatencyMs: 10_000, p99LatencyMs: 10_000 },
  },
  candidateId: 'c1',
  deployment: { endpointName: ENDPOINT },
  workerIndex: 1,
};

describe('runLoadWorker', () => {
  it("writes the worker's result under the run's load tests and returns only a pointer to it", async () => {
    // Arrange
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');

    // Act
    const outcome = await runLoadWorker(EVENT, {
      store,
      openTransport: stubTransports(() => ({ latencyMs: 2 })),
      logger: silentLogger,
    });

    // Assert
    const resultUri = `s3://mso-artifacts/runs/${RUN_ID}/load-tests/c1/worker-1/segment-0.json`;
    expect(outcome).toEqual({ workerIndex: 1, resultUri, stoppedBecause: 'completed' });
    const stored = store.objects.get(resultUri);
    expect(stored?.contentType).toBe('application/json');
    const result = JSON.parse(new TextDecoder().decode(stored?.body)) as WorkerResult;
    expect(result.steps.map((step) => step.load)).toEqual([4]);
  });

  it("runs a round as one step at the round's load and writes it under the round's index", async () => {
    // Prepare: the plan's steps 2 and 8; a knee probe at 6, segment 1 of the steps already run.
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');
    const plan = { ...EVENT.plan, loadPlan: { ...EVENT.plan.loadPlan, steps: [2, 8] } };
    const loadRound = { index: 1, kind: 'knee' as const, load: 6, startEpochMs: Date.now() };

    // Act
    const outcome = await runLoadWorker(
      {
        ...EVENT,
        plan,
        deployment: { endpointName: ENDPOINT, loadSegment: { index: 1, startEpochMs: 0 }, loadRound },
      },
      { store, openTransport: stubTransports(() => ({ latencyMs: 2 })), logger: silentLogger },
    );

    // Assert: worker 1 of 2 keeps 3 of the 6 in flight, from the round's start.
    const resultUri = `s3://mso-artifacts/runs/${RUN_ID}/load-tests/c1/worker-1/round-1.json`;
    expect(outcome).toEqual({ workerIndex: 1, resultUri, stoppedBecause: 'completed' });
    const result = JSON.parse(new TextDecoder().decode(store.objects.get(resultUri)?.body)) as WorkerResult;
    expect([
      result.startEpochMs,
      result.segmentIndex,
      result.steps.map((step) => [step.load, step.workerLoad]),
    ]).toEqual([loadRound.startEpochMs, undefined, [[6, 3]]]);
  });

  it("opens the transport to the candidate's endpoint with the worker's share of connections, and closes it", async () => {
    // Arrange
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');
    const opened: unknown[] = [];
    let closed = 0;
    const inner = stubTransports(() => ({ latencyMs: 2 }));
    const openTransport: TransportFactory = (options) => {
      opened.push(options);
      const transport = inner(options);
      return {
        invoke: (request, signal) => transport.invoke(request, signal),
        close: () => Promise.resolve(void (closed += 1)),
      };
    };

    // Act
    await runLoadWorker(EVENT, { store, openTransport, logger: silentLogger });

    // Assert
    expect(opened).toEqual([{ endpointName: ENDPOINT, connections: 2, requestTimeoutMs: 65_000 }]);
    expect(closed).toBe(1);
  });

  it('resumes a later segment where its own earlier segments stopped, and writes it beside them', async () => {
    // Prepare: two 0.2 s steps in 0.2 s segments; segment 0 ran step 1, segment 1 runs step 2.
    // No plateau stop: the subject is resuming, and a busy machine can flatten two 0.2 s steps.
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');
    const plan = {
      ...EVENT.plan,
      loadPlan: { ...EVENT.plan.loadPlan, steps: [2, 4], stopAtPlateau: false },
      loadSegmentSeconds: 0.2,
    };
    const first = await runLoadWorker(
      { ...EVENT, plan },
      { store, openTransport: stubTransports(() => ({ latencyMs: 2 })), logger: silentLogger },
    );

    // Act
    const second = await runLoadWorker(
      {
        ...EVENT,
        plan,
        deployment: { endpointName: ENDPOINT, loadSegment: { index: 1, startEpochMs: Date.now() } },
      },
      { store, openTransport: stubTransports(() => ({ latencyMs: 2 })), logger: silentLogger },
    );

    // Assert
    expect([first.stoppedBecause, second.stoppedBecause]).toEqual(['segment-end', 'completed']);
    const stored = store.objects.get(second.resultUri);
    const result = JSON.parse(new TextDecoder().decode(stored?.body)) as WorkerResult;
    expect(second.resultUri).toBe(`s3://mso-artifacts/runs/${RUN_ID}/load-tests/c1/worker-1/segment-1.json`);
    expect([result.segmentIndex, result.steps.map((step) => [step.stepIndex, step.load])]).toEqual([
      1,
      [[1, 4]],
    ]);
  });

  it('opens the stream transport, not the invoke transport, for a plan that streams, and closes it', async () => {
    // Arrange: a stub server that streams two TGI tokens 1 ms apart after 2 ms.
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');
    const plan = {
      ...EVENT.plan,
      loadPlan: { ...EVENT.plan.loadPlan, response: { mode: 'stream' as const, format: 'tgi' as const } },
    };
    const opened: unknown[] = [];
    let closed = 0;
    const tgi = (text: string, last: boolean) =>
      new TextEncoder().encode(
        `data:${JSON.stringify({
          token: { id: 1, text, special: false },
          generated_text: last ? 'text' : null,
          details: last ? { finish_reason: 'length', generated_tokens: 2 } : null,
        })}\n\n`,
      );
    const openStreamTransport: StreamTransportFactory = (target) => {
      opened.push(target);
      return {
        invokeStream: async (_request, _signal, onPart) => {
          await sleep(2);
          onPart(tgi(' a', false));
          await sleep(1);
          onPart(tgi(' b', true));
          return { kind: 'ok' };
        },
        close: () => Promise.resolve(void (closed += 1)),
      };
    };
    const openTransport: TransportFactory = () => {
      throw new Error('the invoke transport must not be opened for a streaming plan');
    };

    // Act
    const outcome = await runLoadWorker(
      { ...EVENT, plan },
      { store, openTransport, openStreamTransport, logger: silentLogger },
    );

    // Assert
    const result = JSON.parse(
      new TextDecoder().decode(store.objects.get(outcome.resultUri)?.body),
    ) as WorkerResult;
    const stream = result.steps[0]?.stream;
    expect({
      opened,
      closed,
      format: stream?.format,
      tokensPerRequest: (stream?.outputTokens ?? 0) / (result.steps[0]?.ok ?? 0),
      countedRequests: stream?.outputTokenSources.counted,
    }).toEqual({
      opened: [{ endpointName: ENDPOINT, connections: 2, requestTimeoutMs: 65_000 }],
      closed: 1,
      format: 'tgi',
      tokensPerRequest: 2,
      countedRequests: 0,
    });
  });

  it('fails a streaming plan when no stream transport factory was given', async () => {
    // Arrange
    const store = new MemoryObjectStore().seed(PAYLOAD_URI, '{}');
    const plan = {
      ...EVENT.plan,
      loadPlan: { ...EVENT.plan.loadPlan, response: { mode: 'stream' as const, format: 'tgi' as const } },
    };

    // Act
    const run = runLoadWorker(
      { ...EVENT, plan },
      { store, openTransport: stubTransports(() => ({ latencyMs: 2 })), logger: silentLogger },
    );

    // Assert
    await expect(run).rejects.toThrow(
      'Invalid run input: streamTransport: got nothing, expected a StreamInvokeTransport to the endpoint, since loadPlan.response.mode is "stream" (format tgi)',
    );
  });
});
