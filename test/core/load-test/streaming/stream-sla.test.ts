import { describe, expect, it } from '@jest/globals';
import type { StreamStepResult } from '../../../../core/load-test/streaming/stream-figures.js';
import { streamSlaBreaches } from '../../../../core/load-test/streaming/stream-sla.js';
import { parseSla } from '../../../../core/contracts/latency-sla.js';

function stream(overrides: Partial<StreamStepResult> = {}): StreamStepResult {
  return {
    format: 'openai',
    ttftMs: { p50: 100, p90: 180, p95: 200, p99: 250, max: 300 },
    itlMs: { p50: 20, p90: 28, p95: 30, p99: 40, max: 50 },
    outputTokens: 1000,
    outputTokensPerSecond: 500,
    outputTokensPerRequest: 100,
    outputTokenSource: 'server',
    withoutToken: 0,
    ttftHistogram: '',
    itlHistogram: '',
    ...overrides,
  };
}

describe('streamSlaBreaches', () => {
  it('passes a step whose TTFT and ITL p95 are at their bounds', () => {
    expect(streamSlaBreaches(stream(), parseSla({ ttftP95Ms: 200, itlP95Ms: 30 }))).toEqual([]);
  });

  it('names both bounds a step misses', () => {
    expect(streamSlaBreaches(stream(), parseSla({ ttftP95Ms: 150, itlP95Ms: 25.5 }))).toEqual([
      'TTFT p95 200.000 ms > SLA 150 ms',
      'ITL p95 30.000 ms > SLA 25.5 ms',
    ]);
  });

  it('fails a bound on a step that was not streamed rather than passing it', () => {
    expect(streamSlaBreaches(undefined, parseSla({ itlP95Ms: 30 }))).toEqual([
      "ITL p95 not measured: the step's responses were not streamed",
    ]);
  });

  it('fails the TTFT bound when no successful response held a visible token', () => {
    // Arrange
    const empty = { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };

    // Act
    const breaches = streamSlaBreaches(
      stream({ ttftMs: empty, withoutToken: 12 }),
      parseSla({ ttftP95Ms: 200 }),
    );

    // Assert
    expect(breaches).toEqual([
      'TTFT p95 not measured: none of the 12 successful responses held a visible token',
    ]);
  });

  it('judges nothing when the SLA names no streaming bound', () => {
    expect(streamSlaBreaches(undefined, parseSla({ p95LatencyMs: 100 }))).toEqual([]);
  });
});
