import { describe, expect, it } from '@jest/globals';

import { createSeededRandom, uniformValues } from '../../../local/example-model/seeded-random.js';

describe('createSeededRandom', () => {
  it('repeats the same sequence for the same seed', () => {
    // Prepare
    const first = createSeededRandom(42);
    const second = createSeededRandom(42);

    // Act
    const a = Array.from({ length: 5 }, () => first());
    const b = Array.from({ length: 5 }, () => second());

    // Assert
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(5);
  });

  it('gives a different sequence for another seed', () => {
    // Act
    const a = createSeededRandom(1)();
    const b = createSeededRandom(2)();

    // Assert
    expect(a).not.toBe(b);
  });
});

describe('uniformValues', () => {
  it('draws every value inside [low, high)', () => {
    // Act
    const values = uniformValues(createSeededRandom(3), 1000, -0.5, 0.25);

    // Assert
    expect(values).toHaveLength(1000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(-0.5);
    expect(Math.max(...values)).toBeLessThan(0.25);
    // Spread over the range, not stuck near one end.
    expect(Math.min(...values)).toBeLessThan(-0.4);
    expect(Math.max(...values)).toBeGreaterThan(0.15);
  });
});
