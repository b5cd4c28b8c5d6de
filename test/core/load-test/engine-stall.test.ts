import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import type { StreamInvokeTransport } from '../../../core/load-test/streaming/stream-transport.js';
import { nextRound } from '../../../core/load-test/rounds.js';
import { ScriptedTransport, SlotServer, StoppingServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { seededRandom } from '../../../core/contracts/seeded-random.js';
import { lognormalSampler } from '../../../bench/support/latency-samples.js';
import { parseLoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySlaInput } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/json' };
const SLA: LatencySlaInput = { p95LatencyMs: 500, maxErrorRate: 0.01 };
const TIMEOUT_MS = 65_000;

async function run(planInput: LoadPlanInput, transport: (clock: VirtualClock) => InvokeTransport) {
  const clock = new VirtualClock();
  const plan = parseLoadPlan({ requestTimeoutMs: TIMEOUT_MS, kneeProbes: 0, repeats: 1, ...planInput });
  const sla = parseSla(SLA);
  const worker = await runLoadTest({ plan, sla, transport: transport(clock), request: REQUEST, clock });
  return { plan, worker, result: aggregateWorkerResults([worker], sla, plan) };
}

// Steps 1 and 2 (warm-up 1 s, window 20 s, so step 2's window starts at 22 s); 25 ms per request:
// 40 and 80 requests/s. The server stops 1 s into step 2's window and comes back 17 s later.
const STEPS = { steps: [1, 2], warmupSeconds: 1, stepDurationSeconds: 20, stopAtPlateau: false };
const STOP = { fromUs: 23_000_000, toUs: 40_000_000 };

describe('runLoadTest, an endpoint that stops answering', () => {
  it('judges a server that stops answering mid-step stalled, not met (closed model, concurrency 2)', async () => {
    // Act
    const { result } = await run(
      STEPS,
      (clock) => new StoppingServer(clock, 25_000, STOP, TIMEOUT_MS * 1000),
    );

    // Assert: before, the two stuck requests were 2 samples of ~240 and the step met the SLA.
    const [first, second] = result.steps;
    expect(first?.meetsSla).toBe(true);
    expect(first?.stall).toBeUndefined();
    expect(second?.stall).toEqual({ atMs: 1000, durationMs: 17_025 });
    expect(second?.meetsSla).toBe(false);
    expect(second?.slaBreaches[0]).toBe(
      'endpoint stalled: no answer for 17.0 s from 1.0 s into the window while requests were outstanding',
    );
    expect(result.stoppedBecause).toBe('stalled');
    expect(result.stopDetail).toBe('endpoint stalled at 1.0 s into step 2 (2 in flight) for 17.0 s');
    expect(result.sustainableStep).toBe(1);
  });

  it('judges a server that stops answering mid-step stalled, not met (open model, 80 requests/s)', async () => {
    // Act
    const { result } = await run(
      { ...STEPS, model: 'open', steps: [40, 80] },
      (clock) => new StoppingServer(clock, 25_000, STOP, TIMEOUT_MS * 1000),
    );

    // Assert: the arrivals went on, so the stall is in the latency too; the step names it first.
    const [first, second] = result.steps;
    expect(first?.meetsSla).toBe(true);
    expect(second?.stall).toEqual({ atMs: 1000, durationMs: 17_025 });
    expect(second?.meetsSla).toBe(false);
    expect(second?.latencyMs.max).toBeGreaterThan(17_000);
    expect(result.stoppedBecause).toBe('stalled');
    expect(result.stopDetail).toMatch(
      /^endpoint stalled at 1\.0 s into step 2 \(80 requests\/s\) for 17\.0 s; also p95 /,
    );
  });

  it('records requests stuck past the window as timeouts of at least the request timeout', async () => {
    // Act: the server never comes back; the two stuck requests time out 65 s after they were sent.
    const { result } = await run(
      { steps: [2], warmupSeconds: 1, stepDurationSeconds: 20 },
      (clock) => new StoppingServer(clock, 25_000, { fromUs: 2_000_000 }, TIMEOUT_MS * 1000),
    );

    // Assert
    const [step] = result.steps;
    expect(step?.errors.timeout).toBe(2);
    expect(step?.latencyMs.max).toBe(TIMEOUT_MS);
    expect(step?.stall).toEqual({ atMs: 1000, durationMs: TIMEOUT_MS });
    expect(result.stoppedBecause).toBe('stalled');
  });

  it('judges a server stalled since the warm-up stalled, though no measured request started', async () => {
    // Act: stopped 0.5 s into the warm-up; both users wait on their stuck warm-up requests.
    const { result } = await run(
      { steps: [2], warmupSeconds: 1, stepDurationSeconds: 20 },
      (clock) => new StoppingServer(clock, 25_000, { fromUs: 500_000 }, TIMEOUT_MS * 1000),
    );

    // Assert
    const [step] = result.steps;
    expect(step?.requests).toBe(0);
    expect(step?.stall).toEqual({ atMs: 0, durationMs: 64_500 });
    expect(step?.slaBreaches).toEqual([
      'endpoint stalled: no answer for 64.5 s from 0.0 s into the window while requests were outstanding',
      'no request was measured in the window',
    ]);
  });

  it('runs no knee probe or repeat after a stall', async () => {
    // Act
    const { plan, result } = await run(
      { ...STEPS, kneeProbes: 3, repeats: 3 },
      (clock) => new StoppingServer(clock, 25_000, STOP, TIMEOUT_MS * 1000),
    );

    // Assert
    expect(nextRound(result, plan)).toBeNull();
  });

  it('does not call a healthy but noisy endpoint stalled', async () => {
    // Prepare: lognormal service times (median 20 ms, p99.9 about 440 ms) and a 1 s pause.
    const sample = lognormalSampler(seededRandom(7), Math.log(20_000), 1);
    const noisy = (clock: VirtualClock) => new ScriptedTransport(clock, () => ({ latencyUs: sample() }));
    const paused = (clock: VirtualClock) =>
      new SlotServer(clock, 4, 20_000, [{ fromUs: 5_000_000, toUs: 6_000_000 }]);

    // Act
    const noise = await run({ steps: [4, 8], warmupSeconds: 1, stepDurationSeconds: 20 }, noisy);
    const pause = await run({ steps: [4], warmupSeconds: 1, stepDurationSeconds: 20 }, paused);

    // Assert
    expect(noise.result.steps.map((step) => step.stall)).toEqual([undefined, undefined]);
    expect(pause.result.steps[0]?.stall).toBeUndefined();
  });

  it('does not call a slow model that answers stalled (10 s per request, one at a time)', async () => {
    // Act
    const { result } = await run(
      { steps: [1], warmupSeconds: 0, stepDurationSeconds: 60 },
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000_000 })),
    );

    // Assert
    expect(result.steps[0]?.stall).toBeUndefined();
    expect(result.steps[0]?.requests).toBe(6);
  });
  it('judges a streaming server that stops mid-step stalled, its stuck requests in latency and TTFT', async () => {
    // Prepare: a TGI stream of one token, answered by the stopping server's schedule.
    const clock = new VirtualClock();
    const server = new StoppingServer(clock, 25_000, { fromUs: 2_000_000 }, TIMEOUT_MS * 1000);
    const token = new TextEncoder().encode(
      'data:{"token":{"id":0,"text":" t","logprob":-0.1,"special":false},"generated_text":"t","details":{"finish_reason":"length","generated_tokens":1}}\n\n',
    );
    const streamTransport: StreamInvokeTransport = {
      invokeStream: async (request, signal, onPart) => {
        const outcome = await server.invoke(request, signal);
        if (outcome.kind === 'ok') onPart(token);
        return outcome;
      },
    };
    const plan = parseLoadPlan({
      steps: [2],
      warmupSeconds: 1,
      stepDurationSeconds: 20,
      requestTimeoutMs: TIMEOUT_MS,
      response: { mode: 'stream', format: 'tgi' },
    });
    const sla = parseSla(SLA);

    // Act
    const worker = await runLoadTest({ plan, sla, streamTransport, request: REQUEST, clock });
    const result = aggregateWorkerResults([worker], sla, plan);

    // Assert
    const [step] = result.steps;
    expect(step?.stall).toEqual({ atMs: 1000, durationMs: TIMEOUT_MS });
    expect(step?.latencyMs.max).toBe(TIMEOUT_MS);
    expect(step?.stream?.ttftMs.max).toBe(TIMEOUT_MS);
    expect(result.stoppedBecause).toBe('stalled');
  });
});
