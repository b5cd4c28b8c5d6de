import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import { decodeHistogram } from '../../../core/load-test/histogram.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import type { WorkerResult } from '../../../core/load-test/results.js';
import { PayloadMix } from '../../../core/load-test/payload-mix.js';
import { combineSegments } from '../../../core/load-test/segments.js';
import { ScriptedTransport } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySla } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/octet-stream' };
const LOOSE_SLA = parseSla({ p99LatencyMs: 100_000 });
/** Between two segments: the workflow aggregates, then sets the next shared start (plus Lambda start-up). */
const GAP_MS = 7_000;

/** Every 7th request is slow, every 101st very slow: a histogram with a shape worth comparing. */
function shapedLatency(call: number): { latencyUs: number } {
  if (call % 101 === 0) return { latencyUs: 250_000 };
  if (call % 7 === 0) return { latencyUs: 40_000 };
  return { latencyUs: 5_000 };
}

/** 2 requests/s, a 60 s warm-up and a 40-minute window: cut four times by 600 s segments. */
function fortyMinuteOpenStep(): LoadPlan {
  return parseLoadPlan({
    model: 'open',
    steps: [2],
    warmupSeconds: 60,
    stepDurationSeconds: 2400,
    maxTotalSeconds: 3000,
  });
}

async function runWhole(
  plan: LoadPlan,
  sla: LatencySla,
  transport: (clock: VirtualClock) => InvokeTransport,
) {
  const clock = new VirtualClock();
  return runLoadTest({ plan, sla, transport: transport(clock), request: REQUEST, clock });
}

/** Runs segment after segment, as the workflow does, until one does not end at its segment's end. */
async function runSegmented(
  plan: LoadPlan,
  sla: LatencySla,
  segmentSeconds: number,
  transport: (clock: VirtualClock) => InvokeTransport,
  request: InvokeRequest | PayloadMix = REQUEST,
): Promise<WorkerResult[]> {
  const clock = new VirtualClock();
  const stub = transport(clock);
  const results: WorkerResult[] = [];
  for (let index = 0; ; index++) {
    const result = await runLoadTest({
      plan,
      sla,
      transport: stub,
      request,
      clock,
      startAtEpochMs: index === 0 ? clock.epochMs() : clock.epochMs() + GAP_MS,
      segment: { index, seconds: segmentSeconds, previous: [...results] },
    });
    results.push(result);
    if (result.stoppedBecause !== 'segment-end') return results;
  }
}

describe('runLoadTest in segments', () => {
  it('adds a payload mix’s figures up across the parts of a step, each segment drawing on', async () => {
    // Prepare: weights 1 and 3, 2 requests/s over a 40-minute window cut into 600 s segments.
    const plan = fortyMinuteOpenStep();
    const mix = PayloadMix.of([
      { request: REQUEST, weight: 1 },
      { request: { ...REQUEST, body: new Uint8Array([2, 2]) }, weight: 3 },
    ]);
    const transport = (clock: VirtualClock) => new ScriptedTransport(clock, shapedLatency);

    // Act
    const segments = await runSegmented(plan, LOOSE_SLA, 600, transport, mix);
    const [merged] = aggregateWorkerResults([combineSegments(segments)], LOOSE_SLA, plan).steps;

    // Assert: every measured request counted under its payload once, about a quarter of them the first.
    const payloads = merged?.payloads ?? [];
    expect(payloads.map((payload) => payload.payload)).toEqual([0, 1]);
    expect(payloads.reduce((total, payload) => total + payload.requests, 0)).toBe(merged?.requests);
    expect(merged?.requests).toBe(4800);
    const firstShare = (payloads[0]?.requests ?? 0) / 4800;
    expect(firstShare).toBeGreaterThan(0.22);
    expect(firstShare).toBeLessThan(0.28);
  });

  it('measures a 40-minute open-model step in 600 s segments exactly as one long window', async () => {
    // Prepare: 2 requests/s, a 60 s warm-up and a 40-minute window: 5 segments of 600 s, the
    // window cut four times, each gap 7 s long; latencies of 5, 40 and 250 ms by request number.
    const plan = fortyMinuteOpenStep();
    const transport = (clock: VirtualClock) => new ScriptedTransport(clock, shapedLatency);

    // Act
    const whole = await runWhole(plan, LOOSE_SLA, transport);
    const segments = await runSegmented(plan, LOOSE_SLA, 600, transport);

    // Assert: the same step, to the histogram's last count and the throughput's last bucket.
    expect(segments.map((segment) => segment.stoppedBecause)).toEqual([
      'segment-end',
      'segment-end',
      'segment-end',
      'segment-end',
      'completed',
    ]);
    const [expected] = aggregateWorkerResults([whole], LOOSE_SLA, plan).steps;
    const [merged] = aggregateWorkerResults([combineSegments(segments)], LOOSE_SLA, plan).steps;
    expect(merged).toEqual(expected);
    expect(merged?.requests).toBe(4_800);
    expect(merged?.tps).toBe(2);
    expect(decodeHistogram(merged?.histogram ?? '').totalCount).toBe(4_800);
    expect(merged?.latencyMs.max).toBe(250);
    expect(merged?.late).toBe(0);
  }, 120_000);

  it('continues the arrival grid across a gap: no burst after it, no gap counted as latency', async () => {
    // Prepare: 10 requests/s for 20 s in 7 s segments (window cut at 7 s and 14 s).
    const plan = parseLoadPlan({ model: 'open', steps: [10], warmupSeconds: 0, stepDurationSeconds: 20 });
    const starts: number[] = [];
    const transport = (clock: VirtualClock): InvokeTransport => {
      const scripted = new ScriptedTransport(clock, () => ({ latencyUs: 5_000 }));
      return {
        invoke: (request, signal) => {
          starts.push(clock.epochMs());
          return scripted.invoke(request, signal);
        },
      };
    };

    // Act
    const segments = await runSegmented(plan, LOOSE_SLA, 7, transport);

    // Assert: each segment's first request is at its shared start, 100 ms after the one before on
    // the schedule; 70 arrivals in each full segment, none twice, none skipped.
    const counts = segments.map((segment) => segment.steps[0]?.requests);
    expect(counts).toEqual([70, 70, 60]);
    const secondStart = segments[1]?.startEpochMs ?? Number.NaN;
    expect(starts[70]).toBe(secondStart);
    expect((starts[71] ?? 0) - (starts[70] ?? 0)).toBe(100);
    const [step] = aggregateWorkerResults([combineSegments(segments)], LOOSE_SLA, plan).steps;
    expect(step?.latencyMs.max).toBe(5);
    expect(step?.requests).toBe(200);
    expect(step?.late).toBe(0);
  });

  it('restarts the closed model with the same concurrency in each segment', async () => {
    // Prepare: 4 in flight, 100 ms per request, a 10 s window in 6 s segments.
    const plan = parseLoadPlan({ model: 'closed', steps: [4], warmupSeconds: 0, stepDurationSeconds: 10 });
    const transport = (clock: VirtualClock) => new ScriptedTransport(clock, () => ({ latencyUs: 100_000 }));

    // Act
    const whole = await runWhole(plan, LOOSE_SLA, transport);
    const segments = await runSegmented(plan, LOOSE_SLA, 6, transport);

    // Assert: 4 × 60 requests in the first part, 4 × 40 in the second: as one 10 s window.
    expect(segments.map((segment) => segment.steps[0]?.requests)).toEqual([240, 160]);
    const [expected] = aggregateWorkerResults([whole], LOOSE_SLA, plan).steps;
    const [merged] = aggregateWorkerResults([combineSegments(segments)], LOOSE_SLA, plan).steps;
    expect(merged).toEqual(expected);
  });

  it('judges a step cut by a segment on all its parts, and stops before the next step', async () => {
    // Prepare: 1 request/s at 5 ms, then 500 ms from the 8th request on (the step's second part);
    // p95 within 100 ms. The 10 s step runs in 6 s segments; its first part alone meets the SLA.
    const plan = parseLoadPlan({
      model: 'open',
      steps: [1, 2],
      warmupSeconds: 0,
      stepDurationSeconds: 10,
      stopAtPlateau: false,
    });
    const sla = parseSla({ p95LatencyMs: 100 });
    const transport = (clock: VirtualClock) =>
      new ScriptedTransport(clock, (call) => ({ latencyUs: call >= 7 ? 500_000 : 5_000 }));

    // Act
    const segments = await runSegmented(plan, sla, 6, transport);

    // Assert: segment 2 finishes step 1, judges it on its 10 requests (3 of them slow) and stops.
    expect(segments.map((segment) => segment.stoppedBecause)).toEqual(['segment-end', 'sla-breached']);
    const result = aggregateWorkerResults([combineSegments(segments)], sla, plan);
    expect(result.steps.map((step) => step.requests)).toEqual([10]);
    expect(result.steps[0]?.slaBreaches).toEqual(['p95 500.000 ms > SLA 100 ms']);
    expect(result.stoppedBecause).toBe('sla-breached');
  });

  it('carries the request allowance over to the next segment', async () => {
    // Prepare: maxTotalRequests 15 at 1 request/s in 6 s segments: 6, 6, then the last 3.
    const plan = parseLoadPlan({
      model: 'open',
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 20,
      maxTotalRequests: 15,
    });
    const transport = (clock: VirtualClock) => new ScriptedTransport(clock, () => ({ latencyUs: 5_000 }));

    // Act
    const segments = await runSegmented(plan, LOOSE_SLA, 6, transport);

    // Assert
    expect(segments.map((segment) => segment.requestsIssued)).toEqual([6, 6, 3]);
    expect(segments.map((segment) => segment.stoppedBecause)).toEqual([
      'segment-end',
      'segment-end',
      'request-cap',
    ]);
    expect(combineSegments(segments).steps.map((step) => step.requests)).toEqual([15]);
  });

  it('runs nothing in a segment after the worker stopped in an earlier one', async () => {
    // Prepare: a first segment that stopped on the SLA.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ model: 'open', steps: [1, 2], warmupSeconds: 0, stepDurationSeconds: 1 });
    const stopped: WorkerResult = {
      schemaVersion: 1,
      workerIndex: 0,
      workers: 1,
      model: 'open',
      startEpochMs: clock.epochMs(),
      finishedEpochMs: clock.epochMs(),
      segmentIndex: 0,
      requestsIssued: 1,
      steps: [],
      stoppedBecause: 'sla-breached',
      stopDetail: 'step 1 (1 requests/s): p95 over the SLA',
    };
    const transport = new ScriptedTransport(clock, () => ({ latencyUs: 5_000 }));

    // Act
    const result = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport,
      request: REQUEST,
      clock,
      segment: { index: 1, seconds: 60, previous: [stopped] },
    });

    // Assert
    expect(transport.calls).toBe(0);
    expect(result.stoppedBecause).toBe('sla-breached');
    expect(result.stopDetail).toBe('stopped in segment 1: step 1 (1 requests/s): p95 over the SLA');
  });

  it('refuses a segment without the results of the segments before it', async () => {
    // Prepare
    const clock = new VirtualClock();
    const plan = parseLoadPlan({
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 1,
    } satisfies LoadPlanInput);

    // Act
    const error = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })),
      request: REQUEST,
      clock,
      segment: { index: 2, seconds: 60, previous: [] },
    }).catch((caught: unknown) => caught);

    // Assert
    expect(error).toMatchObject({
      name: 'InvalidRunInputError',
      issues: [
        {
          field: 'segment.previous',
          given: '0 results',
          expected: "this worker's results of the 2 earlier segments",
        },
      ],
    });
  });
});

describe('combineSegments', () => {
  it('leaves out a step the last segment cut and no segment resumed', async () => {
    // Prepare: one full step, then a second cut at the first segment's end.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ model: 'open', steps: [1, 2], warmupSeconds: 0, stepDurationSeconds: 4 });
    const first = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })),
      request: REQUEST,
      clock,
      segment: { index: 0, seconds: 6, previous: [] },
    });

    // Act
    const combined = combineSegments([first]);

    // Assert
    expect(first.steps.map((step) => [step.stepIndex, step.cutAtSegmentEnd])).toEqual([
      [0, undefined],
      [1, true],
    ]);
    expect(combined.steps.map((step) => step.stepIndex)).toEqual([0]);
  });
});
