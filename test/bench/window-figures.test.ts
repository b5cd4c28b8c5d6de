import { describe, expect, it } from '@jest/globals';
import { ceilingPair } from '../../bench/support/paired.js';
import { processCpuUs, windowFigures } from '../../bench/support/window.js';

describe('windowFigures', () => {
  const start = { atEpochMs: 10_000, served: 1_000, clientCpuUs: 400_000 };

  it('counts only the window’s requests and client CPU, not a tool’s cold start before it', () => {
    // Arrange
    const end = { atEpochMs: 15_000, served: 201_000, clientCpuUs: 4_400_000 };

    // Act
    const figures = windowFigures(start, end, 17_000);

    // Assert
    expect(figures).toEqual({
      requestsPerSecond: 40_000,
      cpuUsPerRequest: 20,
      requests: 200_000,
      seconds: 5,
      insideRun: true,
    });
  });

  it('fails when the window ended after the client stopped sending (its wind-down was timed)', () => {
    // Arrange
    const end = { atEpochMs: 15_000, served: 201_000, clientCpuUs: 4_400_000 };

    // Act
    const figures = windowFigures(start, end, 14_999);

    // Assert
    expect(figures.insideRun).toBe(false);
  });

  it('gives NaN figures for a window that saw no request, so that no goal can pass', () => {
    // Act
    const figures = windowFigures(start, { ...start, atEpochMs: 15_000, clientCpuUs: 900_000 }, 20_000);

    // Assert
    expect(figures.requestsPerSecond).toBeNaN();
    expect(figures.cpuUsPerRequest).toBeNaN();
  });
});

describe('ceilingPair', () => {
  it('pairs the two tools’ window figures', () => {
    expect(
      ceilingPair(
        { requestsPerSecond: 30_000, cpuUsPerRequest: 18 },
        { requestsPerSecond: 40_000, cpuUsPerRequest: 24 },
      ),
    ).toEqual({
      engineTps: 30_000,
      autocannonTps: 40_000,
      engineCpuUsPerRequest: 18,
      autocannonCpuUsPerRequest: 24,
    });
  });

  it('fails when a round has no autocannon run (NaN figures)', () => {
    const pair = ceilingPair({ requestsPerSecond: 30_000, cpuUsPerRequest: 18 }, undefined);
    expect([pair.autocannonTps, pair.autocannonCpuUsPerRequest]).toEqual([Number.NaN, Number.NaN]);
  });
});

describe('processCpuUs', () => {
  it('reads a process’s CPU time from /proc, never less than it had before', () => {
    // Act
    const first = processCpuUs(process.pid);
    const second = processCpuUs(process.pid);

    // Assert
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThanOrEqual(first);
  });
});
