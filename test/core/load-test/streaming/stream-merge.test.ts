import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults, mergeWorkerSteps } from '../../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../../core/load-test/engine.js';
import {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  recordLatencyUs,
} from '../../../../core/load-test/histogram.js';
import type { InvokeRequest } from '../../../../core/load-test/ports.js';
import type { WorkerResult, WorkerStep } from '../../../../core/load-test/results.js';
import { combineSegments, mergeStepParts } from '../../../../core/load-test/segments.js';
import type { StreamWorkerFigures } from '../../../../core/load-test/streaming/stream-figures.js';
import { TokenStreamServer } from '../support/stub-stream-server.js';
import { VirtualClock } from '../support/virtual-clock.js';
import { parseLoadPlan } from '../../../../core/contracts/load-plan.js';
import { parseSla } from '../../../../core/contracts/latency-sla.js';

const SLA = parseSla({ p99LatencyMs: 100_000 });
const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/json' };

function encoded(valuesUs: readonly number[]): string {
  const histogram = createLatencyHistogram();
  for (const value of valuesUs) recordLatencyUs(histogram, value);
  return encodeHistogram(histogram);
}

function streamFigures(
  ttftUs: readonly number[],
  itlUs: readonly number[],
  overrides: Partial<StreamWorkerFigures> = {},
): StreamWorkerFigures {
  return {
    format: 'tgi',
    ttftHistogram: encoded(ttftUs),
    maxTtftUs: Math.max(0, ...ttftUs),
    itlHistogram: encoded(itlUs),
    maxItlUs: Math.max(0, ...itlUs),
    outputTokens: ttftUs.length * 4,
    outputTokenSources: { server: ttftUs.length, counted: 0 },
    withoutToken: 0,
    ...overrides,
  };
}

/** A worker's step over a 1 s window, `ok` successful requests completing evenly across it. */
function workerStep(
  ok: number,
  stream: StreamWorkerFigures,
  overrides: Partial<WorkerStep> = {},
): WorkerStep {
  return {
    stepIndex: 0,
    load: 2,
    workerLoad: 1,
    windowStartEpochMs: 1_000,
    windowMs: 1000,
    activeFromMs: 0,
    activeToMs: 1000,
    bucketMs: 50,
    okPerBucket: Array.from({ length: 20 }, (_, index) => (index < ok ? 1 : 0)),
    requests: ok,
    ok,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    histogram: encoded(Array.from({ length: ok }, () => 200_000)),
    maxLatencyUs: 200_000,
    stream,
    ...overrides,
  };
}

describe('streamed figures merged across workers', () => {
  it('adds the TTFT histograms, so p95 is the slow worker’s request, not an average of percentiles', () => {
    // Arrange: worker 0 saw three 10 ms first tokens, worker 1 one of 100 ms.
    const parts = [
      workerStep(3, streamFigures([10_000, 10_000, 10_000], [2_000, 2_000])),
      workerStep(1, streamFigures([100_000], [8_000])),
    ];

    // Act
    const step = mergeWorkerSteps(parts, SLA, 'closed');

    // Assert: 10.007 ms is 10 ms as the histogram resolves it (the highest value of its bucket).
    expect({
      ttft: step.stream?.ttftMs,
      itl: step.stream?.itlMs,
      tps: step.tps,
      outputTokens: step.stream?.outputTokens,
      outputTokensPerSecond: step.stream?.outputTokensPerSecond,
      ttftCount: decodeHistogram(step.stream?.ttftHistogram ?? '').totalCount,
    }).toEqual({
      ttft: { p50: 10.007, p90: 100, p95: 100, p99: 100, max: 100 },
      itl: { p50: 2, p90: 8, p95: 8, p99: 8, max: 8 },
      tps: 4,
      outputTokens: 16,
      outputTokensPerSecond: 16,
      ttftCount: 4,
    });
  });

  it('adds the time-per-output-token histograms, one value per request', () => {
    // Arrange: worker 0's requests decoded at 5 and 6 ms a token, worker 1's at 40 ms.
    const parts = [
      workerStep(
        2,
        streamFigures([10_000, 10_000], [], { tpotHistogram: encoded([5_000, 6_000]), maxTpotUs: 6_000 }),
      ),
      workerStep(1, streamFigures([10_000], [], { tpotHistogram: encoded([40_000]), maxTpotUs: 40_000 })),
    ];

    // Act
    const step = mergeWorkerSteps(parts, SLA, 'closed');

    // Assert
    expect(step.stream?.tpotMs).toEqual({ p50: 6.003, p90: 40, p95: 40, p99: 40, max: 40 });
  });

  it('gives no time per output token when a part has none: figures of an earlier version', () => {
    // Arrange
    const parts = [
      workerStep(1, streamFigures([10_000], [], { tpotHistogram: encoded([5_000]), maxTpotUs: 5_000 })),
      workerStep(1, streamFigures([10_000], [])),
    ];

    // Act
    const step = mergeWorkerSteps(parts, SLA, 'closed');

    // Assert
    expect(step.stream?.tpotMs).toBeNull();
  });

  it('says "mixed" when some workers’ servers reported their counts and others were counted', () => {
    // Arrange
    const parts = [
      workerStep(1, streamFigures([10_000], [])),
      workerStep(1, streamFigures([10_000], [], { outputTokenSources: { server: 0, counted: 1 } })),
    ];

    // Act
    const step = mergeWorkerSteps(parts, SLA, 'closed');

    // Assert
    expect(step.stream?.outputTokenSource).toBe('mixed');
  });

  it('refuses parts read with different stream formats', () => {
    // Arrange
    const parts = [
      workerStep(1, streamFigures([10_000], [])),
      workerStep(1, streamFigures([10_000], [], { format: 'openai' })),
    ];

    // Act
    const merge = () => mergeWorkerSteps(parts, SLA, 'closed');

    // Assert
    expect(merge).toThrow(
      "cannot merge streamed figures of different runs: expected every part of step 0 read as 'tgi', got [tgi, openai]",
    );
  });

  it('adds the parts of one worker’s step over segments: histograms, tokens and sources', () => {
    // Arrange
    const first = workerStep(2, streamFigures([10_000, 20_000], [1_000]), { cutAtSegmentEnd: true });
    const second = workerStep(
      1,
      streamFigures([30_000], [3_000, 5_000], {
        withoutToken: 1,
        outputTokenSources: { server: 0, counted: 2 },
      }),
    );

    // Act
    const { ttftHistogram, itlHistogram, ...stream } =
      mergeStepParts([first, second]).stream ?? streamFigures([], []);

    // Assert
    expect({
      ...stream,
      ttftCount: decodeHistogram(ttftHistogram).totalCount,
      itlCount: decodeHistogram(itlHistogram).totalCount,
    }).toEqual({
      format: 'tgi',
      maxTtftUs: 30_000,
      maxItlUs: 5_000,
      outputTokens: 12,
      outputTokenSources: { server: 2, counted: 2 },
      withoutToken: 1,
      ttftCount: 3,
      itlCount: 3,
    });
  });
});

describe('a streamed step run in segments', () => {
  it('merges to the same figures as one long window', async () => {
    // Arrange: 10 requests/s for 20 s, cut at 7 s and 14 s (as segments.test.ts does for latency);
    // 30 ms to the first token, then 2 tokens 5 ms apart.
    const plan = parseLoadPlan({
      model: 'open',
      steps: [10],
      warmupSeconds: 0,
      stepDurationSeconds: 20,
      response: { mode: 'stream', format: 'tgi' },
    });
    const script = { ttftUs: 30_000, gapUs: 5_000, tokens: 3 };
    const wholeClock = new VirtualClock();
    const whole = await runLoadTest({
      plan,
      sla: SLA,
      streamTransport: new TokenStreamServer(wholeClock, 4, script),
      request: REQUEST,
      clock: wholeClock,
    });
    const clock = new VirtualClock();
    const server = new TokenStreamServer(clock, 4, script);

    // Act
    const segments: WorkerResult[] = [];
    for (let index = 0; ; index++) {
      const result = await runLoadTest({
        plan,
        sla: SLA,
        streamTransport: server,
        request: REQUEST,
        clock,
        startAtEpochMs: clock.epochMs() + (index === 0 ? 0 : 7_000),
        segment: { index, seconds: 7, previous: [...segments] },
      });
      segments.push(result);
      if (result.stoppedBecause !== 'segment-end') break;
    }

    // Assert
    const [expected] = aggregateWorkerResults([whole], SLA, plan).steps;
    const [merged] = aggregateWorkerResults([combineSegments(segments)], SLA, plan).steps;
    expect(segments).toHaveLength(3);
    expect(merged?.stream).toEqual(expected?.stream);
    expect({ requests: merged?.requests, tokens: merged?.stream?.outputTokens }).toEqual({
      requests: 200,
      tokens: 600,
    });
  });
});
