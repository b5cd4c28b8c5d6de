import { describe, expect, it } from '@jest/globals';
import {
  cpuUsPerToken,
  formatMeetsGoals,
  relativeError,
  rotated,
  streamFormatFigures,
  withinTolerance,
} from '../../bench/support/streaming.js';
import type {
  StreamAccuracy,
  StreamFormatFigures,
  StreamPair,
  StreamingGoals,
} from '../../bench/support/streaming.js';

describe('cpuUsPerToken', () => {
  it('divides the CPU time of a run by the tokens it read', () => {
    // Act
    const perToken = cpuUsPerToken({ cpuUs: 1_200_000, tokens: 300_000 });

    // Assert
    expect(perToken).toBe(4);
  });

  it('refuses a figure for a run that read no token (NaN, which fails every goal)', () => {
    expect(cpuUsPerToken({ cpuUs: 1_000, tokens: 0 })).toBeNaN();
  });
});

describe('streamFormatFigures', () => {
  const pair = (engineCpuUs: number, peerCpuUs: number, engineTps: number, peerTps: number): StreamPair => ({
    engine: { cpuUs: engineCpuUs, tokens: 100_000, tokensPerSecond: engineTps },
    peer: { cpuUs: peerCpuUs, tokens: 100_000, tokensPerSecond: peerTps },
  });

  it('takes the overhead and the ratio within each pair, then the median over the pairs', () => {
    // Arrange: 100 000 tokens per run; the engine 4, 5 and 3.5 µs a token, the peer 1, 1.5 and 1.
    const pairs = [
      pair(400_000, 100_000, 120_000, 400_000),
      pair(500_000, 150_000, 100_000, 250_000),
      pair(350_000, 100_000, 150_000, 300_000),
    ];

    // Act
    const figures = streamFormatFigures(pairs);

    // Assert
    expect(figures).toEqual({
      engineCpuUsPerToken: { median: 4, min: 3.5, max: 5 },
      peerCpuUsPerToken: { median: 1, min: 1, max: 1.5 },
      overheadCpuUsPerToken: { median: 3, min: 2.5, max: 3.5 },
      tokensPerSecondRatio: { median: 0.4, min: 0.3, max: 0.5 },
    });
  });

  it('subtracts within a pair, not the medians: a slow round raises both runs of its pair alike', () => {
    // Arrange: the second round ran on a busier machine, every figure doubled.
    const pairs = [pair(400_000, 100_000, 1, 1), pair(800_000, 200_000, 1, 1), pair(420_000, 110_000, 1, 1)];

    // Act
    const overhead = streamFormatFigures(pairs).overheadCpuUsPerToken;

    // Assert: the pairs' differences are 3, 6 and 3.1 µs; their median is 3.1.
    expect(overhead).toEqual({ median: 3.1, min: 3, max: 6 });
  });

  it('fails when a run read no token: its figures are NaN', () => {
    // Arrange: the engine's run read nothing (its tokens/s is 0, its CPU per token undefined).
    const empty = pair(400_000, 100_000, 0, 400_000);
    const pairs: StreamPair[] = [{ ...empty, engine: { ...empty.engine, tokens: 0 } }];

    // Act
    const figures = streamFormatFigures(pairs);

    // Assert
    expect([figures.engineCpuUsPerToken.median, figures.overheadCpuUsPerToken.median]).toEqual([
      Number.NaN,
      Number.NaN,
    ]);
  });
});

describe('relativeError', () => {
  it('is the measured value over the expected one, less one', () => {
    expect(relativeError(5.5, 5)).toBeCloseTo(0.1, 12);
  });
});

describe('withinTolerance', () => {
  it('accepts a value within the tolerance on either side', () => {
    expect([withinTolerance(4.6, 5, 0.1), withinTolerance(5.4, 5, 0.1)]).toEqual([true, true]);
  });

  it('refuses a value beyond the tolerance', () => {
    expect([withinTolerance(4.4, 5, 0.1), withinTolerance(22.5, 20, 0.1)]).toEqual([false, false]);
  });

  it('refuses a value that was not measured (NaN)', () => {
    expect(withinTolerance(Number.NaN, 5, 0.1)).toBe(false);
  });
});

describe('formatMeetsGoals', () => {
  const goals: StreamingGoals = {
    maxOverheadUsPerToken: 10,
    minTokensPerSecondRatio: 0.1,
    accuracyTolerance: 0.1,
  };
  const spread = (median: number) => ({ median, min: median, max: median });
  const figures = (overhead: number, ratio: number): StreamFormatFigures => ({
    engineCpuUsPerToken: spread(overhead + 1),
    peerCpuUsPerToken: spread(1),
    overheadCpuUsPerToken: spread(overhead),
    tokensPerSecondRatio: spread(ratio),
  });
  // The server wrote its first token 19.4 ms after the request arrived, then one every 4.7 ms.
  const accuracy = (ttftP50Ms: number, itlP50Ms: number): StreamAccuracy => ({
    ttftP50Ms,
    itlP50Ms,
    writtenFirstTokenMs: 19.4,
    writtenInterTokenMs: 4.7,
  });

  it('passes a format within every goal', () => {
    expect(formatMeetsGoals(figures(3.7, 0.14), accuracy(20.6, 4.71), goals)).toBe(true);
  });

  it('fails when the engine spends more than the allowed CPU per token beyond the peer', () => {
    expect(formatMeetsGoals(figures(10.5, 0.14), accuracy(20.6, 4.71), goals)).toBe(false);
  });

  it('fails when the engine reads fewer tokens/s than the floor of the peer', () => {
    expect(formatMeetsGoals(figures(3.7, 0.09), accuracy(20.6, 4.71), goals)).toBe(false);
  });

  it("fails when the TTFT p50 is beyond the tolerance of the server's first write", () => {
    // 21.6 ms is 11.3 % above 19.4 ms (it is within 10 % of the nominal 20 ms: not the reference).
    expect(formatMeetsGoals(figures(3.7, 0.14), accuracy(21.6, 4.71), goals)).toBe(false);
  });

  it("fails when the ITL p50 is beyond the tolerance of the server's gaps", () => {
    expect(formatMeetsGoals(figures(3.7, 0.14), accuracy(20.6, 5.2), goals)).toBe(false);
  });

  it('fails when the server reported no written delays (NaN)', () => {
    const unmeasured: StreamAccuracy = { ...accuracy(20.6, 4.71), writtenInterTokenMs: Number.NaN };

    expect(formatMeetsGoals(figures(3.7, 0.14), unmeasured, goals)).toBe(false);
  });

  it('fails when a run read no token (NaN figures)', () => {
    expect(formatMeetsGoals(figures(Number.NaN, Number.NaN), accuracy(20.6, 4.71), goals)).toBe(false);
  });
});

describe('rotated', () => {
  it('starts the formats at a different one each run, keeping their cycle', () => {
    // Act
    const orders = [0, 1, 2, 3].map((by) => rotated(['tgi', 'lmi-jsonlines', 'openai'], by));

    // Assert
    expect(orders).toEqual([
      ['tgi', 'lmi-jsonlines', 'openai'],
      ['lmi-jsonlines', 'openai', 'tgi'],
      ['openai', 'tgi', 'lmi-jsonlines'],
      ['tgi', 'lmi-jsonlines', 'openai'],
    ]);
  });

  it('gives nothing for nothing', () => {
    expect(rotated([], 2)).toEqual([]);
  });
});
