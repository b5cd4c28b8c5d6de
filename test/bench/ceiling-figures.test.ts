import { describe, expect, it } from '@jest/globals';
import { cpuUsPerRequest } from '../../bench/support/cpu.js';
import { ceilingFigures, pairedFigure } from '../../bench/support/paired.js';
import type { CeilingPair } from '../../bench/support/paired.js';

describe('cpuUsPerRequest', () => {
  it('divides the CPU time of a run by the requests it completed', () => {
    // Act
    const perRequest = cpuUsPerRequest({ cpuUs: 2_500_000, requests: 125_000 });

    // Assert
    expect(perRequest).toBe(20);
  });

  it('refuses a figure for a run that completed no request (NaN, which fails every goal)', () => {
    expect(cpuUsPerRequest({ cpuUs: 1_000, requests: 0 })).toBeNaN();
  });
});

describe('pairedFigure', () => {
  it('gives the median of the pairs with their minimum and maximum', () => {
    expect(pairedFigure([1.25, 0.75, 1, 1.5])).toEqual({ median: 1.125, min: 0.75, max: 1.5 });
  });
});

describe('ceilingFigures', () => {
  const pair = (engineTps: number, engineCpu: number): CeilingPair => ({
    engineTps,
    autocannonTps: 40_000,
    engineCpuUsPerRequest: engineCpu,
    autocannonCpuUsPerRequest: 16,
  });

  it('takes each ratio within its pair, then the median over the pairs', () => {
    // Arrange: autocannon 40 000 req/s and 16 µs per request in every round.
    const pairs = [pair(44_000, 12), pair(36_000, 20), pair(40_000, 16)];

    // Act
    const figures = ceilingFigures(pairs, 1);

    // Assert
    expect(figures).toEqual({
      tpsRatio: { median: 1, min: 0.9, max: 1.1 },
      cpuRatio: { median: 1, min: 0.75, max: 1.25 },
      engineCpuUsPerRequest: { median: 16, min: 12, max: 20 },
      autocannonCpuUsPerRequest: { median: 16, min: 16, max: 16 },
      pass: true,
    });
  });

  it('fails when the engine keeps pace but spends more CPU per request than autocannon', () => {
    expect(ceilingFigures([pair(44_000, 17), pair(42_000, 18), pair(40_000, 16.5)], 1).pass).toBe(false);
  });

  it('fails when the engine is cheaper per request but slower than the goal', () => {
    expect(ceilingFigures([pair(36_000, 12), pair(38_000, 12), pair(39_000, 12)], 1).pass).toBe(false);
  });

  it('fails when a run completed no request', () => {
    expect(ceilingFigures([pair(44_000, Number.NaN)], 1).pass).toBe(false);
  });
});
