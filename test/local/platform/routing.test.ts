import { describe, expect, it } from '@jest/globals';
import { chooseInstance } from '../../../local/platform/routing.js';

/** A `Math.random` stand-in that returns `values` in turn. */
function sequence(...values: number[]): () => number {
  let next = 0;
  return () => values[next++ % values.length] ?? 0;
}

describe('chooseInstance', () => {
  it('RANDOM picks the instance the random number falls on, whatever their load', () => {
    // Prepare
    const outstanding = [0, 5, 9];

    // Act
    const picks = [0, 0.34, 0.99].map((value) => chooseInstance('RANDOM', outstanding, () => value));

    // Assert
    expect(picks).toEqual([0, 1, 2]);
  });

  it('LEAST_OUTSTANDING_REQUESTS picks the idle instance over busy ones', () => {
    // Act
    const pick = chooseInstance('LEAST_OUTSTANDING_REQUESTS', [2, 0, 1], sequence(0));

    // Assert
    expect(pick).toBe(1);
  });

  it('LEAST_OUTSTANDING_REQUESTS breaks a tie at random between the least busy instances only', () => {
    // Act
    const picks = [0, 0.99].map((value) =>
      chooseInstance('LEAST_OUTSTANDING_REQUESTS', [1, 3, 1], () => value),
    );

    // Assert
    expect(picks).toEqual([0, 2]);
  });

  it('refuses to pick when there is no instance', () => {
    // Act
    const pick = chooseInstance('RANDOM', [], sequence(0.5));

    // Assert
    expect(pick).toBeUndefined();
  });
});
