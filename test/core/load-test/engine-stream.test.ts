import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import { decodeHistogram } from '../../../core/load-test/histogram.js';
import { PayloadMix } from '../../../core/load-test/payload-mix.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';
import type { LoadTestProgress } from '../../../core/load-test/results.js';
import type { StreamStepResult } from '../../../core/load-test/streaming/stream-figures.js';
import { ScriptedTransport } from '../../../bench/support/stub-transports.js';
import { type TokenScript, TokenStreamServer } from './support/stub-stream-server.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySlaInput } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = {
  body: new TextEncoder().encode('{"inputs":"hello","parameters":{"max_new_tokens":4},"stream":true}'),
  contentType: 'application/json',
};
const LOOSE_SLA: LatencySlaInput = { p99LatencyMs: 100_000 };
const STREAM_TGI = { mode: 'stream', format: 'tgi' } as const;

/** One streamed worker on a virtual clock, aggregated as the workflow would. */
async function runStreamed(
  planInput: LoadPlanInput,
  server: { slots: number; script: TokenScript },
  slaInput: LatencySlaInput = LOOSE_SLA,
) {
  const clock = new VirtualClock();
  const plan = parseLoadPlan({
    warmupSeconds: 0,
    stepDurationSeconds: 1,
    response: STREAM_TGI,
    ...planInput,
  });
  const sla = parseSla(slaInput);
  const worker = await runLoadTest({
    plan,
    sla,
    streamTransport: new TokenStreamServer(clock, server.slots, server.script),
    request: REQUEST,
    clock,
  });
  return { worker, result: aggregateWorkerResults([worker], sla, plan) };
}

/** The merged stream figures without their encoded histograms. */
function figuresOf(stream: StreamStepResult | undefined) {
  if (stream === undefined) return undefined;
  const { ttftHistogram: _ttft, itlHistogram: _itl, ...figures } = stream;
  return figures;
}

/** Nearest-rank percentile of exact values: the smallest with at least p % at or below it. */
function exactPercentile(values: readonly number[], percentile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((percentile / 100) * sorted.length) - 1] ?? Number.NaN;
}

function expectWithinResolution(actualMs: number | undefined, expectedMs: number): void {
  expect(actualMs).toBeGreaterThanOrEqual(expectedMs);
  expect(actualMs).toBeLessThanOrEqual(expectedMs * 1.001);
}

describe('runLoadTest, streaming mode', () => {
  it('records TTFT, every inter-token gap and the server-reported tokens of each request', async () => {
    // Arrange: one user; 50 ms to the first token, then 3 tokens 10 ms apart (80 ms a request):
    // starts at 0, 80, …, 960 ms are measured (13), of which 12 complete inside the 1 s window.
    const script = { ttftUs: 50_000, gapUs: 10_000, tokens: 4 };

    // Act
    const { result } = await runStreamed({ steps: [1] }, { slots: 1, script });

    // Assert
    const [step] = result.steps;
    expect({ requests: step?.requests, tps: step?.tps, latencyP50: step?.latencyMs.p50 }).toEqual({
      requests: 13,
      tps: 12,
      latencyP50: 80,
    });
    expect(figuresOf(step?.stream)).toEqual({
      format: 'tgi',
      ttftMs: { p50: 50, p90: 50, p95: 50, p99: 50, max: 50 },
      itlMs: { p50: 10, p90: 10, p95: 10, p99: 10, max: 10 },
      tpotMs: { p50: 10, p90: 10, p95: 10, p99: 10, max: 10 },
      outputTokens: 52,
      outputTokensPerSecond: 48,
      outputTokensPerRequest: 4,
      outputTokenSource: 'server',
      withoutToken: 0,
    });
  });

  it('reports TTFT, ITL and output tokens per second in its progress events', async () => {
    // Arrange: one user; 50 ms to the first token, then 3 tokens 10 ms apart, over 2 s.
    const clock = new VirtualClock();
    const events: LoadTestProgress[] = [];
    const plan = parseLoadPlan({
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 2,
      response: STREAM_TGI,
    });

    // Act
    await runLoadTest({
      plan,
      sla: parseSla(LOOSE_SLA),
      streamTransport: new TokenStreamServer(clock, 1, { ttftUs: 50_000, gapUs: 10_000, tokens: 4 }),
      request: REQUEST,
      clock,
      onProgress: (event) => events.push(event),
    });

    // Assert: 1 s in, 12 requests of 4 tokens have ended (48 tokens/s); the window's end, 24 in 2 s.
    expect(events.map((event) => [event.phase, event.requests, event.stream])).toEqual([
      ['measure', 12, { ttftP95Ms: 50, itlP95Ms: 10, outputTokensPerSecond: 48 }],
      ['drain', 24, { ttftP95Ms: 50, itlP95Ms: 10, outputTokensPerSecond: 48 }],
    ]);
  });

  it('reports no stream figures in the progress of a buffered test', async () => {
    // Arrange
    const clock = new VirtualClock();
    const events: LoadTestProgress[] = [];

    // Act
    await runLoadTest({
      plan: parseLoadPlan({ steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 }),
      sla: parseSla(LOOSE_SLA),
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      request: REQUEST,
      clock,
      onProgress: (event) => events.push(event),
    });

    // Assert
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.stream === undefined)).toBe(true);
  });

  it('carries the merged TTFT and ITL histograms: one TTFT per request, one ITL per gap', async () => {
    // Act
    const { result } = await runStreamed(
      { steps: [1] },
      { slots: 1, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4 } },
    );

    // Assert
    const stream = result.steps[0]?.stream;
    expect({
      ttft: decodeHistogram(stream?.ttftHistogram ?? '').totalCount,
      itl: decodeHistogram(stream?.itlHistogram ?? '').totalCount,
    }).toEqual({ ttft: 13, itl: 39 });
  });

  it('says the tokens were counted when the server reports no count', async () => {
    // Act
    const { result } = await runStreamed(
      { steps: [1] },
      { slots: 1, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4, reportsCount: false } },
    );

    // Assert
    const stream = result.steps[0]?.stream;
    expect({ source: stream?.outputTokenSource, tokens: stream?.outputTokens }).toEqual({
      source: 'counted',
      tokens: 52,
    });
  });

  it('times TTFT from the scheduled start in the open model, so a request held back carries its wait', async () => {
    // Arrange: 100 arrivals/s, one request in flight at a time, 20 ms each (first token at 15 ms,
    // the second 5 ms later). Arrival i (every 10 ms) is sent when arrival i − 1 ends, at i × 20 ms,
    // so its first token comes i × 10 ms + 15 ms after its scheduled start.
    const expectedTtftMs = Array.from({ length: 100 }, (_, index) => index * 10 + 15);

    // Act
    const { result } = await runStreamed(
      { model: 'open', steps: [100], maxInFlight: 1 },
      { slots: 1, script: { ttftUs: 15_000, gapUs: 5_000, tokens: 2 } },
    );

    // Assert
    const stream = result.steps[0]?.stream;
    for (const percentile of [50, 90, 95, 99] as const) {
      expectWithinResolution(stream?.ttftMs[`p${percentile}`], exactPercentile(expectedTtftMs, percentile));
    }
    expect({ ttftMax: stream?.ttftMs.max, itl: stream?.itlMs }).toEqual({
      ttftMax: 1005,
      itl: { p50: 5, p90: 5, p95: 5, p99: 5, max: 5 },
    });
  });

  it('counts a stream that fails midway as a model error and keeps none of its tokens', async () => {
    // Act: the second token's event is an error event
    const { result } = await runStreamed(
      { steps: [1] },
      { slots: 1, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4, errorAtToken: 1 } },
      { p99LatencyMs: 100_000, maxErrorRate: 1 },
    );

    // Assert
    const step = result.steps[0];
    expect({
      modelErrors: step?.errors.modelError,
      requests: step?.requests,
      sample: step?.errorSamples[0]?.message,
      stream: figuresOf(step?.stream),
    }).toEqual({
      modelErrors: 17,
      requests: 17,
      sample: 'TGI stream error: generation: CUDA error: out of memory',
      stream: {
        format: 'tgi',
        ttftMs: { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
        itlMs: { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
        tpotMs: null,
        outputTokens: 0,
        outputTokensPerSecond: 0,
        outputTokensPerRequest: 0,
        outputTokenSource: 'none',
        withoutToken: 0,
      },
    });
  });

  it('fails the SLA on TTFT p95 and stops stepping there', async () => {
    // Act
    const { result } = await runStreamed(
      { steps: [1, 2] },
      { slots: 2, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4 } },
      { ttftP95Ms: 40 },
    );

    // Assert
    expect({
      steps: result.steps.map((step) => step.slaBreaches),
      stoppedBecause: result.stoppedBecause,
    }).toEqual({ steps: [['TTFT p95 50.000 ms > SLA 40 ms']], stoppedBecause: 'sla-breached' });
  });

  it('fails the SLA on ITL p95', async () => {
    // Act
    const { result } = await runStreamed(
      { steps: [1] },
      { slots: 1, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4 } },
      { ttftP95Ms: 60, itlP95Ms: 5 },
    );

    // Assert
    expect(result.steps[0]?.slaBreaches).toEqual(['ITL p95 10.000 ms > SLA 5 ms']);
  });

  it('meets the SLA when TTFT and ITL p95 are within their bounds', async () => {
    // Act
    const { result } = await runStreamed(
      { steps: [1] },
      { slots: 1, script: { ttftUs: 50_000, gapUs: 10_000, tokens: 4 } },
      { ttftP95Ms: 50, itlP95Ms: 10 },
    );

    // Assert
    expect({ meetsSla: result.steps[0]?.meetsSla, sustainableTps: result.sustainableTps }).toEqual({
      meetsSla: true,
      sustainableTps: 12,
    });
  });

  it('keeps the stream figures when each request draws its payload from a mix', async () => {
    // Arrange
    const clock = new VirtualClock();
    const plan = parseLoadPlan({
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 1,
      response: STREAM_TGI,
    });
    const mix = PayloadMix.of([
      { request: REQUEST, weight: 1 },
      { request: { ...REQUEST, body: new Uint8Array([2]) }, weight: 1 },
    ]);

    // Act
    const worker = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      streamTransport: new TokenStreamServer(clock, 1, { ttftUs: 50_000, gapUs: 10_000, tokens: 4 }),
      request: mix,
      clock,
    });

    // Assert
    const step = worker.steps[0];
    expect({
      payloadRequests: step?.payloads?.reduce((sum, payload) => sum + payload.requests, 0),
      tokens: step?.stream?.outputTokens,
      sources: step?.stream?.outputTokenSources,
    }).toEqual({ payloadRequests: 13, tokens: 52, sources: { server: 13, counted: 0 } });
  });

  it('refuses a streaming plan without a stream transport', async () => {
    // Arrange
    const clock = new VirtualClock();

    // Act
    const run = runLoadTest({
      plan: { steps: [1], response: STREAM_TGI },
      sla: LOOSE_SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 1_000 })),
      request: REQUEST,
      clock,
    });

    // Assert
    await expect(run).rejects.toThrow(
      'Invalid run input: streamTransport: got nothing, expected a StreamInvokeTransport to the endpoint, since loadPlan.response.mode is "stream" (format tgi)',
    );
  });

  it('refuses TTFT and ITL bounds for a plan that does not stream', async () => {
    // Arrange
    const clock = new VirtualClock();

    // Act
    const run = runLoadTest({
      plan: { steps: [1] },
      sla: { p95LatencyMs: 100, ttftP95Ms: 50, itlP95Ms: 10 },
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 1_000 })),
      request: REQUEST,
      clock,
    });

    // Assert
    const expected =
      'nothing unless loadPlan.response is { "mode": "stream", "format": … }: time to first token and inter-token latency are measured on streamed responses only';
    await expect(run).rejects.toThrow(
      `Invalid run input: sla.ttftP95Ms: got 50, expected ${expected}; sla.itlP95Ms: got 10, expected ${expected}`,
    );
  });

  it('refuses a buffered plan without an invoke transport', async () => {
    // Act
    const run = runLoadTest({
      plan: { steps: [1] },
      sla: LOOSE_SLA,
      request: REQUEST,
      clock: new VirtualClock(),
    });

    // Assert
    await expect(run).rejects.toThrow(
      'Invalid run input: transport: got nothing, expected an InvokeTransport to the endpoint (loadPlan.response.mode is not "stream")',
    );
  });

  it('leaves a buffered step without stream figures', async () => {
    // Arrange
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 });

    // Act
    const worker = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      request: REQUEST,
      clock,
    });

    // Assert
    expect(worker.steps.map((step) => step.stream)).toEqual([undefined]);
  });
});
