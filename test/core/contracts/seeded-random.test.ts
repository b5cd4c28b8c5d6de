import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '../../../core/contracts/seeded-random.js';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed', () => {
    // Prepare
    const first = seededRandom(42);
    const second = seededRandom(42);

    // Act
    const a = Array.from({ length: 5 }, () => first());
    const b = Array.from({ length: 5 }, () => second());

    // Assert
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(5);
  });

  it('gives a different sequence for another seed', () => {
    // Act
    const a = seededRandom(1)();
    const b = seededRandom(2)();

    // Assert
    expect(a).not.toBe(b);
  });
});
