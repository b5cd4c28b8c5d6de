import { describe, expect, it } from '@jest/globals';
import type { RecordProofEvent } from '../../../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  recordLatencyUs,
  type WorkerResult,
} from '../../../../core/load-test/index.js';
import type { InvocationsPerInstanceReader } from '../../../../core/ports/index.js';
import { recordProof } from '../../../../core/steps/optimization/record-proof.js';
import type { Report } from '../../../../core/report/report.js';
import { correctedRequest, proofCandidate, proofLoadPlan } from '../../../../core/serving/prove-target.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { plannedCandidate, reportFrom, SAMPLE_LOAD_PLAN } from '../../../../bench/fixtures/sample-report.js';

const RUN_ID = 'nightly-2026-11-22';
const PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
const LOCATIONS = {
  json: `${PREFIX}report.json`,
  markdown: `${PREFIX}report.md`,
  html: `${PREFIX}report.html`,
};
const WORKER_URI = `${PREFIX}load-tests/c5-large-prove/worker-0/segment-0.json`;
const START = Date.parse('2026-11-22T11:00:00Z');
const SLA = { p95LatencyMs: 20, maxErrorRate: 0.01, targetTps: 600 };
const WINNER = plannedCandidate('c5-large', 'ml.c5.large', 0.102);
const REQUEST = {
  targetTps: 600,
  instances: 4,
  candidate: proofCandidate(RUN_ID, WINNER, 4),
  loadPlan: proofLoadPlan({ ...SAMPLE_LOAD_PLAN, warmupSeconds: 0, stepDurationSeconds: 1 }, 600, 1),
};

/** A report as "Recommend" wrote it: c5-large sized for 600 TPS, not proven yet. */
const REPORT: Report = reportFrom(
  [{ candidate: WINNER, steps: [{ load: 1, tps: 200, medianMs: 5, tailMs: 2 }] }],
  { plan: { sla: SLA, prove: { enabled: true, workers: 1 } } },
);

/** One worker's one open-model step at 600 requests/s: `ok` answers in `latencyMs` over 1 s. */
function workerResult(ok: number, latencyMs: number): WorkerResult {
  const histogram = createLatencyHistogram();
  for (let i = 0; i < ok; i++) recordLatencyUs(histogram, latencyMs * 1000);
  return {
    schemaVersion: 1,
    workerIndex: 0,
    workers: 1,
    model: 'open',
    startEpochMs: START,
    finishedEpochMs: START + 1000,
    steps: [
      {
        stepIndex: 0,
        load: 600,
        workerLoad: 600,
        windowStartEpochMs: START,
        windowMs: 1000,
        activeFromMs: 0,
        activeToMs: 1000,
        bucketMs: 1000,
        okPerBucket: [ok],
        requests: ok,
        ok,
        errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
        errorSamples: [],
        late: 0,
        dropped: 0,
        histogram: encodeHistogram(histogram),
        maxLatencyUs: latencyMs * 1000,
      },
    ],
    stoppedBecause: 'completed',
    stopDetail: 'all steps ran',
  };
}

function storeWith(worker?: WorkerResult): MemoryObjectStore {
  const store = new MemoryObjectStore().seed(LOCATIONS.json, JSON.stringify(REPORT));
  return worker === undefined ? store : store.seed(WORKER_URI, JSON.stringify(worker));
}

function measuredEvent(): RecordProofEvent {
  return {
    plan: { runId: RUN_ID, artifactsBucket: 'mso-artifacts', sla: SLA },
    summary: { report: LOCATIONS, proofRequest: REQUEST },
    deployment: { endpointName: REQUEST.candidate.endpointName, variantName: 'AllTraffic', instanceCount: 4 },
    workers: [{ workerIndex: 0, resultUri: WORKER_URI, stoppedBecause: 'completed' }],
  };
}

const fourInstances: InvocationsPerInstanceReader = {
  read: () =>
    Promise.resolve({
      scope: 'instance',
      instances: [150, 151, 149, 150].map((invocations, i) => ({ instance: `i-${i}`, invocations })),
      note: 'counted by the front',
    }),
};

function readReport(store: MemoryObjectStore): Report {
  const object = store.objects.get(LOCATIONS.json);
  if (object === undefined) throw new Error('no report.json');
  return JSON.parse(new TextDecoder().decode(object.body)) as Report;
}

describe('recordProof', () => {
  it('judges the merged step held, writes the proof into report.json and returns the verdict', async () => {
    // Prepare: 600 answers in 5 ms over the 1 s window.
    const store = storeWith(workerResult(600, 5));

    // Act
    const outcome = await recordProof(measuredEvent(), {
      store,
      logger: silentLogger,
      invocations: fourInstances,
    });

    // Assert
    const note = 'proven: 4 × ml.c5.large held p95 5 ms at 600 TPS (target 600)';
    expect(outcome).toEqual({ status: 'held', candidateId: 'c5-large', instances: 4, note });
    expect(readReport(store).serveTarget).toEqual({
      ...REPORT.serveTarget,
      proven: true,
      provenNote: note,
      proof: {
        status: 'held',
        candidateId: 'c5-large',
        instances: 4,
        instanceType: 'ml.c5.large',
        targetTps: 600,
        measured: { tps: 600, p95Ms: 5, p99Ms: 5, errorRate: 0, workers: 1 },
        perInstance: [
          { instance: 'i-0', invocations: 150 },
          { instance: 'i-1', invocations: 151 },
          { instance: 'i-2', invocations: 149 },
          { instance: 'i-3', invocations: 150 },
        ],
        perInstanceImbalance: 1.01,
        perInstanceNote: 'counted by the front',
        note,
      },
    });
  });

  it('rewrites report.md and report.html with the verdict', async () => {
    // Prepare
    const store = storeWith(workerResult(600, 5));

    // Act
    await recordProof(measuredEvent(), { store, logger: silentLogger });

    // Assert
    const markdown = new TextDecoder().decode(store.objects.get(LOCATIONS.markdown)?.body);
    expect(markdown).toContain('- Proven: 4 × ml.c5.large held p95 5 ms at 600 TPS (target 600).');
    expect(store.objects.get(LOCATIONS.html)?.contentType).toBe('text/html');
  });

  it('records the SLA not held when the merged p95 breaches it', async () => {
    // Prepare: 600 answers in 45 ms (SLA p95 20 ms).
    const store = storeWith(workerResult(600, 45));

    // Act
    const outcome = await recordProof(measuredEvent(), { store, logger: silentLogger });

    // Assert
    expect(outcome.status).toBe('not-held');
    expect(readReport(store).serveTarget?.proof?.measured).toEqual({
      tps: 600,
      p95Ms: 45,
      p99Ms: 45,
      errorRate: 0,
      workers: 1,
    });
    expect(readReport(store).serveTarget?.proven).toBe(false);
  });

  it('records the proof failed with the caught error, without reading any worker result', async () => {
    // Prepare
    const store = storeWith();
    const event: RecordProofEvent = {
      plan: measuredEvent().plan,
      summary: measuredEvent().summary,
      error: {
        Error: 'EndpointFailedError',
        Cause: JSON.stringify({
          errorMessage: 'Endpoint x failed: capacity',
          errorType: 'EndpointFailedError',
        }),
      },
    };

    // Act
    const outcome = await recordProof(event, { store, logger: silentLogger });

    // Assert
    const note =
      'not proven: the proof of 4 × ml.c5.large failed: EndpointFailedError: Endpoint x failed: capacity';
    expect(outcome).toEqual({ status: 'failed', candidateId: 'c5-large', instances: 4, note });
    expect(readReport(store).serveTarget?.proof).toEqual({
      status: 'failed',
      candidateId: 'c5-large',
      instances: 4,
      instanceType: 'ml.c5.large',
      targetTps: 600,
      note,
    });
  });

  it('notes the per-instance figures unavailable when the reader fails, and still judges the proof', async () => {
    // Prepare
    const store = storeWith(workerResult(600, 5));
    const failing: InvocationsPerInstanceReader = {
      read: () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    };

    // Act
    const outcome = await recordProof(measuredEvent(), { store, logger: silentLogger, invocations: failing });

    // Assert
    expect(outcome.status).toBe('held');
    expect(readReport(store).serveTarget?.proof?.perInstanceNote).toBe(
      'unavailable (ThrottlingException: Rate exceeded)',
    );
  });

  it('asks for a corrected count after a proof that did not hold, when the plan allows one', async () => {
    // Prepare: 600 answers in 45 ms (SLA p95 20 ms) on 4 instances; one correction planned.
    const store = storeWith(workerResult(600, 45));
    const event = measuredEvent();

    // Act
    const outcome = await recordProof(
      { ...event, plan: { ...event.plan, prove: { enabled: true, workers: 1, corrections: 1 } } },
      { store, logger: silentLogger },
    );

    // Assert
    expect(outcome.correction).toEqual(correctedRequest(RUN_ID, REQUEST, 5));
    expect(outcome.note).toMatch(/; correcting the count: proving 5 instances$/);
  });

  it('asks for no correction after the corrected proof itself', async () => {
    // Prepare
    const store = storeWith(workerResult(600, 45));
    const event = measuredEvent();
    const second = correctedRequest(RUN_ID, REQUEST, 5);

    // Act
    const outcome = await recordProof(
      {
        ...event,
        plan: { ...event.plan, prove: { enabled: true, workers: 1, corrections: 1 } },
        summary: { ...event.summary, proofRequest: second },
      },
      { store, logger: silentLogger },
    );

    // Assert
    expect([outcome.status, outcome.instances, outcome.correction]).toEqual(['not-held', 5, undefined]);
  });

  it('keeps the first proof under the corrected one, and says which count to deploy', async () => {
    // Prepare: the report holds the first proof (4 instances, not held); the second holds.
    const first = {
      status: 'not-held' as const,
      candidateId: 'c5-large',
      instances: 4,
      targetTps: 600,
      note: 'not held: 4 × ml.c5.large at 600 TPS: p95 45 ms > SLA 20 ms',
    };
    const st = REPORT.serveTarget;
    if (st === undefined) throw new Error('no serveTarget');
    const store = new MemoryObjectStore()
      .seed(LOCATIONS.json, JSON.stringify({ ...REPORT, serveTarget: { ...st, proof: first } }))
      .seed(WORKER_URI, JSON.stringify(workerResult(600, 5)));
    const event = measuredEvent();

    // Act
    const outcome = await recordProof(
      { ...event, summary: { ...event.summary, proofRequest: correctedRequest(RUN_ID, REQUEST, 5) } },
      { store, logger: silentLogger },
    );

    // Assert
    expect(outcome.note).toBe(
      'proven: 5 × ml.c5.large held p95 5 ms at 600 TPS (target 600); deploy 5, not the 4 sized from the measurement',
    );
    expect(readReport(store).serveTarget?.proof?.previous).toEqual(first);
  });
});
