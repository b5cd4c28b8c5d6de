import { describe, expect, it } from '@jest/globals';
import { expectedLatenciesMs, stallInsideWindow } from '../../bench/support/stall.js';

describe('expectedLatenciesMs', () => {
  it('holds each arrival during the stall until its end, on top of the base latency', () => {
    // Arrange: 10 arrivals 100 ms apart; the stall covers arrivals at 300, 400 and 500 ms.
    const schedule = {
      ratePerSecond: 10,
      windowStartEpochMs: 1_000,
      windowSeconds: 1,
      stallFromEpochMs: 1_250,
      stallMs: 300,
    };

    // Act
    const latencies = expectedLatenciesMs(schedule, 2);

    // Assert
    expect(latencies).toEqual([2, 2, 2, 2, 2, 2, 2, 52, 152, 252]);
  });
});

describe('stallInsideWindow', () => {
  const schedule = {
    ratePerSecond: 200,
    windowStartEpochMs: 10_000,
    windowSeconds: 8,
    stallFromEpochMs: 13_000,
    stallMs: 1_000,
  };

  it('accepts a stall wholly inside the window', () => {
    expect(stallInsideWindow(schedule)).toBe(true);
  });

  it('fails when the stall began before the window (the engine joined after the server armed)', () => {
    expect(stallInsideWindow({ ...schedule, stallFromEpochMs: 9_500 })).toBe(false);
  });

  it('fails when the stall ran past the end of the window', () => {
    expect(stallInsideWindow({ ...schedule, stallFromEpochMs: 17_500 })).toBe(false);
  });
});
