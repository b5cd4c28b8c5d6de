import { describe, expect, it } from '@jest/globals';
import { compareTokens, tokenF1 } from '../../../core/quality/index.js';

describe('compareTokens', () => {
  it('matches exactly when the first N tokens agree, whatever follows them', () => {
    // Act
    const comparison = compareTokens(
      { tokens: ['The', ' cat', ' sat', ' down'] },
      { tokens: ['The', ' cat', ' sat', ' up'] },
      3,
    );

    // Assert
    expect(comparison).toEqual({ exactMatch: true, f1: 1 });
  });

  it('credits shared tokens after an inserted one, which a positional match would not', () => {
    // Act
    const comparison = compareTokens(
      { tokens: ['a', 'b', 'c', 'd'] },
      { tokens: ['a', 'x', 'b', 'c', 'd'] },
      5,
    );

    // Assert: 4 shared; precision 4/5, recall 4/4, F1 = 2·0.8·1 / 1.8
    expect(comparison.exactMatch).toBe(false);
    expect(comparison.f1).toBeCloseTo(8 / 9, 12);
  });

  it('counts a repeated token only as often as the reference has it', () => {
    // Act
    const f1 = tokenF1(['the', 'cat'], ['the', 'the', 'the', 'the']);

    // Assert: 1 shared; precision 1/4, recall 1/2, F1 = 1/3
    expect(f1).toBeCloseTo(1 / 3, 12);
  });

  it('fails when the candidate answers nothing where the reference answers', () => {
    // Act
    const comparison = compareTokens({ tokens: ['yes'] }, { tokens: [] }, 8);

    // Assert
    expect(comparison).toEqual({ exactMatch: false, f1: 0 });
  });

  it('matches two empty answers', () => {
    // Act
    const comparison = compareTokens({ tokens: [] }, { tokens: [] }, 8);

    // Assert
    expect(comparison).toEqual({ exactMatch: true, f1: 1 });
  });
});
