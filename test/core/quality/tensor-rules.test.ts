import { describe, expect, it } from '@jest/globals';
import { compareClassifiers, compareTensors, topClasses } from '../../../core/quality/index.js';
import type { ClassifierRule, TensorRule } from '../../../core/contracts/quality.js';

const tensor = (shape: number[], values: number[]) => ({ shape, values: Float64Array.from(values) });
const TENSOR: TensorRule = { kind: 'tensor', maxAbsoluteDifference: 0.01, maxRelativeDifference: 0.1 };
const TOP_2: ClassifierRule = { kind: 'classifier', topK: 2, minAgreementRate: 1 };

describe('compareTensors', () => {
  it('measures the largest difference against the isclose allowance of each element', () => {
    // Prepare: allowances 0.01 + 0.1·|r| = 0.11, 0.01, 0.21
    const reference = tensor([3], [1, 0, -2]);
    const candidate = tensor([3], [1.055, 0.005, -2.42]);

    // Act
    const comparison = compareTensors(reference, candidate, TENSOR);

    // Assert
    expect(comparison).toEqual({
      comparable: true,
      maxAbsoluteDifference: expect.closeTo(0.42, 12) as unknown,
      maxRelativeDifference: expect.closeTo(0.21, 12) as unknown,
      distance: expect.closeTo(2, 12) as unknown,
    });
  });

  it('keeps every figure a finite number when two finite answers differ by more than the largest double', () => {
    // Act
    const comparison = compareTensors(tensor([1], [-1.5e308]), tensor([1], [1.5e308]), TENSOR);

    // Assert
    expect(comparison).toEqual({
      comparable: true,
      maxAbsoluteDifference: Number.MAX_VALUE,
      maxRelativeDifference: Number.MAX_VALUE / 1.5e308,
      distance: Number.MAX_VALUE / (0.01 + 0.1 * 1.5e308),
    });
  });

  it('fails when the answers have different shapes, naming both', () => {
    // Act
    const comparison = compareTensors(
      tensor([1, 10], Array(10).fill(0)),
      tensor([2, 5], Array(10).fill(0)),
      TENSOR,
    );

    // Assert
    expect(comparison).toEqual({
      comparable: false,
      problem: "answers of different shapes: the reference's [1, 10], the candidate's [2, 5]",
    });
  });

  it('fails when the candidate answers NaN, naming the element and the reference’s value', () => {
    // Act
    const comparison = compareTensors(
      tensor([2, 2], [1, 2, 3, 4]),
      tensor([2, 2], [1, 2, Number.NaN, 4]),
      TENSOR,
    );

    // Assert
    expect(comparison).toEqual({
      comparable: false,
      problem: 'NaN at element [1, 0], where the reference answers 3',
    });
  });

  it('fails when the candidate’s answer is empty', () => {
    // Act
    const comparison = compareTensors(tensor([2], [1, 2]), tensor([0], []), TENSOR);

    // Assert
    expect(comparison).toEqual({
      comparable: false,
      problem: 'an empty answer (the reference answers 2 elements)',
    });
  });
});

describe('topClasses and compareClassifiers', () => {
  it('ranks the highest scores first, a tie going to the lower class', () => {
    // Act
    const top = topClasses(Float64Array.from([0.1, 0.7, 0.7, -3, 0.2]), 3);

    // Assert
    expect(top).toEqual([1, 2, 4]);
  });

  it('counts a row as agreeing when the same top-k classes lead, in any order among them', () => {
    // Prepare: row 0 keeps {1, 2} in another order; row 1 swaps class 0 out for class 3
    const reference = tensor([2, 4], [0, 5, 4, 1, 9, 8, 0, 1]);
    const candidate = tensor([2, 4], [0, 4, 5, 1, 9, 0, 1, 8]);

    // Act
    const comparison = compareClassifiers(reference, candidate, TOP_2);

    // Assert
    expect(comparison).toEqual({ comparable: true, rows: 2, agreeingRows: 1, distance: 0.5 });
  });
});
