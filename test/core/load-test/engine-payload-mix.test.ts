import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import { decodeHistogram } from '../../../core/load-test/histogram.js';
import { PayloadMix } from '../../../core/load-test/payload-mix.js';
import type { Clock, InvokeOutcome, InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import type { WorkerResult } from '../../../core/load-test/results.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan } from '../../../core/contracts/load-plan.js';
import { parseSla } from '../../../core/contracts/latency-sla.js';

const SMALL: InvokeRequest = { body: new Uint8Array(1), contentType: 'application/json' };
const LARGE: InvokeRequest = { body: new Uint8Array(3), contentType: 'application/json' };
const SLA = parseSla({ p95LatencyMs: 1000 });
const PLAN = parseLoadPlan({ workers: 2, steps: [2, 4], warmupSeconds: 0, stepDurationSeconds: 3 });

/** Serves a 1-byte body in 10 ms and a 3-byte body in 30 ms; remembers the sizes it was sent. */
class SizeTransport implements InvokeTransport {
  readonly sizes: number[] = [];

  constructor(private readonly clock: Clock) {}

  async invoke(request: InvokeRequest, signal: AbortSignal): Promise<InvokeOutcome> {
    this.sizes.push(request.body.byteLength);
    await this.clock.sleepUntil(this.clock.nowUs() + request.body.byteLength * 10_000, signal);
    return signal.aborted ? { kind: 'timeout', message: 'aborted' } : { kind: 'ok' };
  }
}

async function runMix(): Promise<{ workers: WorkerResult[]; transports: SizeTransport[] }> {
  const clock = new VirtualClock();
  const mix = PayloadMix.of([
    { request: SMALL, weight: 3 },
    { request: LARGE, weight: 1 },
  ]);
  const transports = [new SizeTransport(clock), new SizeTransport(clock)];
  const startAtEpochMs = clock.epochMs() + 100;
  const workers = await Promise.all(
    transports.map((transport, workerIndex) =>
      runLoadTest({ plan: PLAN, sla: SLA, transport, request: mix, clock, startAtEpochMs, workerIndex }),
    ),
  );
  return { workers, transports };
}

describe('runLoadTest with a payload mix', () => {
  it("records each payload's requests and latency apart, as the transport served them", async () => {
    // Act
    const { workers, transports } = await runMix();
    const result = aggregateWorkerResults(workers, SLA, PLAN);

    // Assert: every request of the step counted under the payload it sent, timed as served.
    const sent = transports.flatMap((transport) => transport.sizes);
    const [first, second] = result.steps;
    const perStep = [first, second].map((step) => step?.payloads?.map((payload) => payload.requests));
    const total = (perStep[0] ?? []).map((count, index) => count + (perStep[1]?.[index] ?? 0));
    expect(total).toEqual([
      sent.filter((size) => size === 1).length,
      sent.filter((size) => size === 3).length,
    ]);
    expect(first?.payloads?.map((payload) => payload.payload)).toEqual([0, 1]);
    expect(first?.payloads?.map((payload) => payload.latencyMs.p50)).toEqual([10, 30]);
    expect(first?.payloads?.map((payload) => payload.latencyMs.p99)).toEqual([10, 30]);
    expect(first?.payloads?.map((payload) => payload.errors)).toEqual([0, 0]);
  });

  it("merges each payload's histograms across workers by addition", async () => {
    // Act
    const { workers } = await runMix();
    const result = aggregateWorkerResults(workers, SLA, PLAN);

    // Assert
    const merged = result.steps[0]?.payloads ?? [];
    const countOf = (encoded: string | undefined): number => decodeHistogram(encoded ?? '').totalCount;
    for (const payload of [0, 1]) {
      const perWorker = workers.map((worker) => countOf(worker.steps[0]?.payloads?.[payload]?.histogram));
      expect(countOf(merged[payload]?.histogram)).toBe((perWorker[0] ?? 0) + (perWorker[1] ?? 0));
      expect(merged[payload]?.requests).toBe((perWorker[0] ?? 0) + (perWorker[1] ?? 0));
    }
    expect(merged.reduce((sum, payload) => sum + countOf(payload.histogram), 0)).toBe(
      countOf(result.steps[0]?.histogram),
    );
  });

  it('repeats its draws run after run, each worker drawing its own sequence', async () => {
    // Act
    const first = await runMix();
    const second = await runMix();

    // Assert
    expect(second.transports.map((transport) => transport.sizes)).toEqual(
      first.transports.map((transport) => transport.sizes),
    );
    expect(first.transports[1]?.sizes).not.toEqual(first.transports[0]?.sizes);
  });

  it('keeps a single-payload run free of per-payload figures', async () => {
    // Prepare
    const clock = new VirtualClock();
    const transport = new SizeTransport(clock);
    const plan = parseLoadPlan({ steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 });

    // Act
    const worker = await runLoadTest({
      plan,
      sla: SLA,
      transport,
      request: SMALL,
      clock,
    });

    // Assert
    expect(worker.steps[0]?.payloads).toBeUndefined();
    expect(aggregateWorkerResults([worker], SLA, plan).steps[0]?.payloads).toBeUndefined();
  });
});
