import { describe, expect, it } from '@jest/globals';
import {
  beyondNoise,
  combineNoise,
  logDeviation,
  noiseHalfWidth,
  noisePercent,
  poolNoise,
  rerunInterval,
} from '../../../core/report/rerun-interval.js';

// Student's t quantiles at 0.975 (any statistics table): 2 → 4.3027, 4 → 2.7764, 6 → 2.4469.

describe('logDeviation', () => {
  it('sums the squared deviations of the logarithms', () => {
    // Act: ln 450, ln 500, ln 550 deviate from their mean by −0.10228, 0.00308, 0.09839.
    const deviation = logDeviation([450, 500, 550]);

    // Assert
    expect(deviation?.n).toBe(3);
    expect(deviation?.sumSquares).toBeCloseTo(0.0201513, 6);
  });

  it('refuses fewer than two measurements or one that is not positive', () => {
    // Act / Assert
    expect([logDeviation([500]), logDeviation([500, 0]), logDeviation([500, Number.NaN])]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('poolNoise', () => {
  it('adds the degrees of freedom and the squares of every candidate', () => {
    // Act: (0.02 + 0.01) over (2 + 1) degrees of freedom.
    const noise = poolNoise([
      { n: 3, sumSquares: 0.02 },
      { n: 2, sumSquares: 0.01 },
    ]);

    // Assert
    expect(noise?.degreesOfFreedom).toBe(3);
    expect(noise?.logSd).toBeCloseTo(Math.sqrt(0.01), 12);
  });

  it('has nothing to pool without a repeated measurement', () => {
    // Act / Assert
    expect([poolNoise([]), poolNoise([{ n: 1, sumSquares: 0 }])]).toEqual([undefined, undefined]);
  });

  it('combines two runs as one pool', () => {
    // Act: 0.02² × 6 + 0.04² × 2 = 0.0056 over 8 degrees of freedom.
    const noise = combineNoise({ logSd: 0.02, degreesOfFreedom: 6 }, { logSd: 0.04, degreesOfFreedom: 2 });

    // Assert
    expect(noise?.degreesOfFreedom).toBe(8);
    expect(noise?.logSd).toBeCloseTo(Math.sqrt(0.0056 / 8), 12);
    expect(combineNoise(undefined, { logSd: 0.04, degreesOfFreedom: 2 })).toEqual({
      logSd: 0.04,
      degreesOfFreedom: 2,
    });
  });
});

describe('noiseHalfWidth', () => {
  it('takes a median of three as π/2 times the variance of a mean', () => {
    // Act: 2.4469 × 0.02 × √(2 × (π/2) ÷ 3).
    const halfWidth = noiseHalfWidth({ logSd: 0.02, degreesOfFreedom: 6 }, 3, 3);

    // Assert
    expect(halfWidth).toBeCloseTo(2.4469119 * 0.02 * Math.sqrt(Math.PI / 3), 6);
  });

  it('takes a single measurement and a median of two at their own variance', () => {
    // Act: 2.4469 × 0.02 × √(1 + 1/2).
    const halfWidth = noiseHalfWidth({ logSd: 0.02, degreesOfFreedom: 6 }, 1, 2);

    // Assert
    expect(halfWidth).toBeCloseTo(2.4469119 * 0.02 * Math.sqrt(1.5), 6);
  });
});

describe('rerunInterval', () => {
  it('spreads the same ratio below and above the median', () => {
    // Act: half-width 2.7764 × 0.05 × √(π/3) = 0.14206.
    const interval = rerunInterval(400, 3, { logSd: 0.05, degreesOfFreedom: 4 });

    // Assert
    expect(interval.min).toBeCloseTo(400 * Math.exp(-0.142059), 2);
    expect(interval.max).toBeCloseTo(400 * Math.exp(0.142059), 2);
    expect(noisePercent({ logSd: 0.05, degreesOfFreedom: 4 }, 3, 3)).toBe(15.3);
  });
});

describe('beyondNoise', () => {
  const noise = { logSd: 0.02, degreesOfFreedom: 6 };

  it('calls a 4 % difference noise when the half-width is 5.0 %', () => {
    // Act / Assert: half-width 2.4469 × 0.02 × 1.0233 = 0.05008.
    expect(beyondNoise({ value: 500, n: 3 }, { value: 480, n: 3 }, noise)).toBe(false);
  });

  it('calls a 6 % difference beyond the noise', () => {
    // Act / Assert: |ln(470 / 500)| = 0.0619.
    expect(beyondNoise({ value: 500, n: 3 }, { value: 470, n: 3 }, noise)).toBe(true);
  });

  it('calls a figure of 0 beyond the noise of any other', () => {
    // Act / Assert
    expect(beyondNoise({ value: 500, n: 3 }, { value: 0, n: 3 }, noise)).toBe(true);
  });
});
