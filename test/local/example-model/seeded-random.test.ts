import { describe, expect, it } from '@jest/globals';

import { seededRandom } from '../../../core/contracts/seeded-random.js';
import { uniformValues } from '../../../local/example-model/seeded-random.js';

describe('uniformValues', () => {
  it('draws every value inside [low, high)', () => {
    // Act
    const values = uniformValues(seededRandom(3), 1000, -0.5, 0.25);

    // Assert
    expect(values).toHaveLength(1000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(-0.5);
    expect(Math.max(...values)).toBeLessThan(0.25);
    // Spread over the range, not stuck near one end.
    expect(Math.min(...values)).toBeLessThan(-0.4);
    expect(Math.max(...values)).toBeGreaterThan(0.15);
  });
});
