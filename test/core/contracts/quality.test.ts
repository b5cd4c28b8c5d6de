import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import {
  QUALITY_VERDICTS,
  qualityAllowsRecommendation,
  qualityIssues,
  qualitySchema,
  referenceCandidateIndex,
  type QualityRunView,
} from '../../../core/contracts/quality.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

function issuesOf(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(qualitySchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the quality block to be refused');
}

/** A tensor run: a plain candidate, then one compiled for the same family. */
function view(overrides: Partial<QualityRunView> = {}): QualityRunView {
  return {
    quality: parseOrThrow(qualitySchema, { rule: { kind: 'tensor' } }),
    candidates: [
      { id: 'plain', compiledFor: undefined },
      { id: 'neo', compiledFor: 'ml_c5' },
    ],
    generative: false,
    ...overrides,
  };
}

describe('quality input: the schema', () => {
  it('gives the tensor rule numpy’s isclose defaults, and keeps unknown verdicts from a recommendation', () => {
    // Act
    const parsed = parseOrThrow(qualitySchema, { rule: { kind: 'tensor' } });

    // Assert
    expect(parsed).toEqual({
      rule: { kind: 'tensor', maxAbsoluteDifference: 1e-8, maxRelativeDifference: 1e-5 },
      allowUnknown: false,
      worstExamples: 5,
    });
  });

  it('asks a classifier for the same top class in every row unless told', () => {
    // Act
    const parsed = parseOrThrow(qualitySchema, { rule: { kind: 'classifier' } });

    // Assert
    expect(parsed.rule).toEqual({ kind: 'classifier', topK: 1, minAgreementRate: 1 });
  });

  it('accepts a generative rule with a Lambda scorer, and defaults its first tokens and timeout', () => {
    // Act
    const parsed = parseOrThrow(qualitySchema, {
      rule: {
        kind: 'generative',
        scorer: {
          lambdaArn: 'arn:aws:lambda:us-east-1:123456789012:function:my-scorer:live',
          minMeanScore: 0.8,
        },
      },
    });

    // Assert
    expect(parsed.rule).toEqual({
      kind: 'generative',
      firstTokens: 32,
      scorer: {
        lambdaArn: 'arn:aws:lambda:us-east-1:123456789012:function:my-scorer:live',
        minMeanScore: 0.8,
        timeoutSeconds: 30,
      },
    });
  });

  it('fails when the tensor rule allows no absolute difference, naming why', () => {
    // Act
    const issues = issuesOf({ rule: { kind: 'tensor', maxAbsoluteDifference: 0 } });

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'rule.maxAbsoluteDifference',
        given: '0',
        expected: expect.stringContaining(
          'with 0, any non-zero answer where the reference answers exactly 0 fails',
        ),
      }),
    ]);
  });

  it('fails when a generative rule states nothing an answer must keep to', () => {
    // Act
    const issues = issuesOf({ rule: { kind: 'generative', firstTokens: 16 } });

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'rule',
        expected: expect.stringContaining('at least one of minExactMatchRate, minMeanTokenF1 and scorer'),
      }),
    ]);
  });

  it('fails when a scorer names both a Lambda function and a command', () => {
    // Act
    const issues = issuesOf({
      rule: {
        kind: 'generative',
        scorer: {
          lambdaArn: 'arn:aws:lambda:us-east-1:123456789012:function:my-scorer',
          command: ['python3', 'score.py'],
          minMeanScore: 0.5,
        },
      },
    });

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'rule.scorer',
        expected: expect.stringContaining('exactly one of lambdaArn (on AWS) and command (in local mode)'),
      }),
    ]);
  });

  it('fails when the scorer’s ARN is not a Lambda function’s', () => {
    // Act
    const issues = issuesOf({
      rule: {
        kind: 'generative',
        scorer: { lambdaArn: 'arn:aws:s3:::my-bucket', minMeanScore: 0.5 },
      },
    });

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'rule.scorer.lambdaArn',
        given: '"arn:aws:s3:::my-bucket"',
        expected: expect.stringContaining('a Lambda function ARN'),
      }),
    ]);
  });

  it('fails when an agreement rate is above 1', () => {
    // Act
    const issues = issuesOf({ rule: { kind: 'classifier', minAgreementRate: 99 } });

    // Assert
    expect(issues).toEqual([
      { field: 'rule.minAgreementRate', given: '99', expected: 'a share from 0 to 1, such as 0.99' },
    ]);
  });
});

describe('quality input: the rules across fields', () => {
  it('takes the first candidate that serves the model as given as the reference by default', () => {
    // Prepare
    const run = view({
      candidates: [
        { id: 'neo', compiledFor: 'ml_c5' },
        { id: 'awq', optimizedBy: 'g5-awq' },
        { id: 'plain' },
        { id: 'plain-2' },
      ],
    });

    // Act
    const index = referenceCandidateIndex(run);

    // Assert
    expect(index).toBe(2);
    expect(qualityIssues(run)).toEqual([]);
  });

  it('takes the candidate the input names as the reference, compiled or not', () => {
    // Prepare
    const quality = parseOrThrow(qualitySchema, { reference: 'neo', rule: { kind: 'tensor' } });

    // Act
    const index = referenceCandidateIndex(view({ quality }));

    // Assert
    expect(index).toBe(1);
  });

  it('fails when the reference id names no candidate, listing the ids there are', () => {
    // Prepare
    const quality = parseOrThrow(qualitySchema, { reference: 'baseline', rule: { kind: 'tensor' } });

    // Act
    const issues = qualityIssues(view({ quality }));

    // Assert
    expect(issues).toEqual([
      {
        path: ['quality', 'reference'],
        message: 'the id of a candidate in candidates[] (plain, neo)',
        given: 'baseline',
      },
    ]);
  });

  it('fails when no reference is named and every candidate is compiled or optimized', () => {
    // Prepare
    const run = view({
      candidates: [
        { id: 'neo', compiledFor: 'ml_c5' },
        { id: 'awq', optimizedBy: 'g5-awq' },
      ],
    });

    // Act
    const issues = qualityIssues(run);

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        path: ['quality', 'reference'],
        message: expect.stringContaining('none serves the model as given'),
      }),
    ]);
  });

  it('fails when a tensor rule is given for a generative run', () => {
    // Act
    const issues = qualityIssues(view({ generative: true }));

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        path: ['quality', 'rule', 'kind'],
        given: 'tensor',
        message: expect.stringContaining('this run generates tokens'),
      }),
    ]);
  });

  it('fails when a generative rule is given for a model that answers tensors', () => {
    // Prepare
    const quality = parseOrThrow(qualitySchema, { rule: { kind: 'generative', minMeanTokenF1: 0.9 } });

    // Act
    const issues = qualityIssues(view({ quality }));

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({ path: ['quality', 'rule', 'kind'], given: 'generative' }),
    ]);
  });

  it('fails when the run tests an existing endpoint, which has no reference to compare with', () => {
    // Act
    const issues = qualityIssues(view({ candidates: [], existingEndpoint: { endpointName: 'prod' } }));

    // Assert
    expect(issues).toEqual([expect.objectContaining({ path: ['quality'] })]);
  });

  it('fails when the reference is the only candidate', () => {
    // Act
    const issues = qualityIssues(view({ candidates: [{ id: 'plain' }] }));

    // Assert
    expect(issues).toEqual([
      {
        path: ['quality'],
        message: 'at least two candidates: the reference and one to compare with it',
        given: 1,
      },
    ]);
  });

  it('says nothing when the run has no quality block', () => {
    // Act
    const issues = qualityIssues(view({ quality: undefined, candidates: [] }));

    // Assert
    expect(issues).toEqual([]);
  });
});

describe('quality verdicts and the recommendation', () => {
  it('recommends a passed candidate, never a quality-failed one, and an unknown one only when allowed', () => {
    // Act
    const allowed = {
      passed: qualityAllowsRecommendation(QUALITY_VERDICTS.passed, { allowUnknown: false }),
      failed: qualityAllowsRecommendation(QUALITY_VERDICTS.qualityFailed, { allowUnknown: true }),
      unknownByDefault: qualityAllowsRecommendation(QUALITY_VERDICTS.unknown, { allowUnknown: false }),
      unknownAllowed: qualityAllowsRecommendation(QUALITY_VERDICTS.unknown, { allowUnknown: true }),
    };

    // Assert
    expect(allowed).toEqual({ passed: true, failed: false, unknownByDefault: false, unknownAllowed: true });
  });
});
