import { describe, expect, it } from '@jest/globals';
import type { ClassifierRule, GenerativeRule, TensorRule } from '../../../core/contracts/quality.js';
import {
  judgeClassifiers,
  judgeGenerations,
  judgeTensors,
  type CandidateInput,
  type Judged,
  type ReferenceAnswers,
  type TensorAnswer,
  type TokenAnswer,
} from '../../../core/quality/index.js';

const TENSOR: TensorRule = { kind: 'tensor', maxAbsoluteDifference: 0.01, maxRelativeDifference: 0 };
const TOP_1: ClassifierRule = { kind: 'classifier', topK: 1, minAgreementRate: 0.75 };
const GENERATIVE: GenerativeRule = {
  kind: 'generative',
  firstTokens: 4,
  minExactMatchRate: 0.5,
  minMeanTokenF1: 0.8,
};

const row = (...values: number[]): TensorAnswer => ({
  shape: [1, values.length],
  values: Float64Array.from(values),
});
const words = (text: string): TokenAnswer => ({ tokens: text === '' ? [] : text.split(' ') });

/** Each input asked twice of the reference, with the same answer both times. */
function answered<A>(answers: Record<string, A>): ReferenceAnswers<A> {
  return {
    outcome: 'answered',
    inputs: Object.entries(answers).map(([inputId, answer]) => ({ inputId, answers: [answer, answer] })),
  };
}

function candidate<A>(answers: Record<string, A>): CandidateInput<A>[] {
  return Object.entries(answers).map(([inputId, answer]) => ({ inputId, answer }));
}

function judged<A>(
  reference: ReferenceAnswers<A>,
  answers: readonly CandidateInput<A>[],
  worstExamples = 5,
): Judged<A> {
  return {
    candidateId: 'neo',
    referenceId: 'plain',
    reference,
    candidate: answers,
    quality: { worstExamples },
  };
}

describe('judgeTensors', () => {
  it('passes a candidate within tolerance, with its figures and its worst answers first', () => {
    // Prepare
    const reference = answered({ a: row(1, 2), b: row(3, 4), c: row(5, 6) });
    const answers = candidate({ a: row(1.001, 2), b: row(3, 4.008), c: row(5, 6) });

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict).toEqual({
      candidateId: 'neo',
      referenceId: 'plain',
      verdict: 'passed',
      rule: TENSOR,
      figures: {
        inputsCompared: 3,
        inputsLeftOut: 0,
        maxAbsoluteDifference: expect.closeTo(0.008, 9) as unknown,
        maxRelativeDifference: expect.closeTo(0.002, 9) as unknown,
      },
      worstExamples: [
        expect.objectContaining({ inputId: 'b', reference: '[1, 2] 3, 4', candidate: '[1, 2] 3, 4.008' }),
        expect.objectContaining({ inputId: 'a', reference: '[1, 2] 1, 2', candidate: '[1, 2] 1.001, 2' }),
      ],
      exampleChars: 240,
      notes: [],
    });
    expect(verdict.worstExamples.map((example) => example.distance)).toEqual([
      expect.closeTo(0.8, 9),
      expect.closeTo(0.1, 9),
    ]);
  });

  it('fails when an answer is beyond tolerance, naming the input and the largest difference', () => {
    // Prepare
    const reference = answered({ a: row(1, 2), b: row(3, 4) });
    const answers = candidate({ a: row(1, 2), b: row(3, 4.5) });

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toBe(
      '1 of 2 answers beyond tolerance (|candidate − reference| ≤ 0.01 + 0 × |reference|): b; largest difference 0.5',
    );
    expect(verdict.worstExamples).toEqual([
      { inputId: 'b', distance: 50, reference: '[1, 2] 3, 4', candidate: '[1, 2] 3, 4.5' },
    ]);
  });

  it('fails when the answers have different shapes, with the reason and the example first', () => {
    // Prepare
    const reference = answered({ a: row(1, 2), b: row(3, 4) });
    const answers = candidate({ a: row(1, 2.5), b: row(3, 4, 0) });

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toBe(
      "1 answer(s) cannot be compared with the reference's (b: answers of different shapes: the reference's [1, 2], " +
        "the candidate's [1, 3]); 1 of 2 answers beyond tolerance (|candidate − reference| ≤ 0.01 + 0 × |reference|): a; " +
        'largest difference 0.5',
    );
    expect(verdict.worstExamples.map((example) => [example.inputId, example.distance])).toEqual([
      ['b', null],
      ['a', 50],
    ]);
    expect(verdict.worstExamples[0]?.problem).toBe(
      "answers of different shapes: the reference's [1, 2], the candidate's [1, 3]",
    );
  });

  it('fails when the candidate answers NaN or Infinity', () => {
    // Prepare
    const reference = answered({ a: row(1, 2) });
    const answers = candidate({ a: row(Number.POSITIVE_INFINITY, 2) });

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toContain('a: Infinity at element [0, 0], where the reference answers 1');
  });

  it('fails when the candidate answers nothing', () => {
    // Prepare
    const reference = answered({ a: row(1, 2) });
    const answers = candidate({ a: { shape: [0], values: new Float64Array() } });

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toContain('a: an empty answer (the reference answers 2 elements)');
  });

  it('fails when the candidate’s answer cannot be read as a tensor', () => {
    // Prepare
    const reference = answered({ a: row(1, 2) });
    const answers: CandidateInput<TensorAnswer>[] = [{ inputId: 'a', unreadable: 'an empty body' }];

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.worstExamples).toEqual([
      {
        inputId: 'a',
        distance: null,
        reference: '[1, 2] 1, 2',
        candidate: '',
        problem: 'an unreadable answer (an empty body)',
      },
    ]);
  });

  it('is unknown when the reference failed, and says so', () => {
    // Prepare
    const reference: ReferenceAnswers<TensorAnswer> = {
      outcome: 'failed',
      reason: 'EndpointFailedError: the endpoint did not reach InService',
    };

    // Act
    const verdict = judgeTensors(judged(reference, candidate({ a: row(1) })), TENSOR);

    // Assert
    expect(verdict).toEqual(
      expect.objectContaining({
        verdict: 'unknown',
        reason:
          'the reference plain failed (EndpointFailedError: the endpoint did not reach InService): there is nothing to compare with',
        figures: { inputsCompared: 0, inputsLeftOut: 0 },
        worstExamples: [],
      }),
    );
  });

  it('is unknown when no payload has a deterministic answer: the reference answered each differently twice', () => {
    // Prepare
    const reference: ReferenceAnswers<TensorAnswer> = {
      outcome: 'answered',
      inputs: [
        { inputId: 'a', answers: [row(1, 2), row(1.5, 2)] },
        { inputId: 'b', answers: [row(3, 4), row(3, 4.9)] },
      ],
    };

    // Act
    const verdict = judgeTensors(judged(reference, candidate({ a: row(1, 2), b: row(3, 4) })), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('unknown');
    expect(verdict.reason).toBe(
      'no input has a reference answer to compare with: 2 of 2 inputs left out, as the reference answered them ' +
        'differently when asked again (no deterministic answer): a, b',
    );
    expect(verdict.figures).toEqual({ inputsCompared: 0, inputsLeftOut: 2 });
  });

  it('leaves out an input whose reference answer is not deterministic, and judges the rest, saying so', () => {
    // Prepare
    const reference: ReferenceAnswers<TensorAnswer> = {
      outcome: 'answered',
      inputs: [
        { inputId: 'a', answers: [row(1, 2), row(1.5, 2)] },
        { inputId: 'b', answers: [row(3, 4), row(3, 4.001)] },
      ],
    };

    // Act
    const verdict = judgeTensors(judged(reference, candidate({ a: row(9, 9), b: row(3, 4) })), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('passed');
    expect(verdict.figures.inputsCompared).toBe(1);
    expect(verdict.notes).toEqual([
      '1 of 2 inputs left out, as the reference answered them differently when asked again (no deterministic answer): a',
    ]);
  });

  it('leaves out an input the reference answered with NaN: no tolerance can judge against it', () => {
    // Prepare
    const reference = answered({ a: row(Number.NaN, 2), b: row(3, 4) });

    // Act
    const verdict = judgeTensors(judged(reference, candidate({ a: row(1, 2), b: row(3, 4) })), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('passed');
    expect(verdict.notes).toEqual([
      '1 of 2 inputs left out, as the reference answered NaN at element [0, 0]: a',
    ]);
  });

  it('spells out the first few reasons inputs were left out and counts the rest, so a verdict stays small', () => {
    // Prepare: eight inputs answered NaN, each at its own element, and one usable input
    const nanAt = (index: number) =>
      row(...Array.from({ length: 8 }, (_, at) => (at === index ? Number.NaN : at)));
    const reference = answered({
      ...Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`n${index}`, nanAt(index)])),
      ok: row(1, 2),
    });

    // Act
    const verdict = judgeTensors(judged(reference, candidate({ ok: row(1, 2) })), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('passed');
    expect(verdict.figures.inputsLeftOut).toBe(8);
    expect(verdict.notes).toHaveLength(6);
    expect(verdict.notes[0]).toBe(
      '1 of 9 inputs left out, as the reference answered NaN at element [0, 0]: n0',
    );
    expect(verdict.notes[5]).toBe('3 more inputs left out, for 3 other reasons');
  });

  it('is unknown when the candidate did not answer an input, which is not judged', () => {
    // Prepare
    const reference = answered({ a: row(1, 2), b: row(3, 4) });
    const answers: CandidateInput<TensorAnswer>[] = [
      { inputId: 'a', answer: row(1, 2) },
      { inputId: 'b', unanswered: 'HTTP 500' },
    ];

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('unknown');
    expect(verdict.reason).toBe(
      'the candidate did not answer 1 input(s), which are not judged: b (HTTP 500)',
    );
  });

  it('fails rather than stays unknown when an answered input is already beyond tolerance', () => {
    // Prepare
    const reference = answered({ a: row(1, 2), b: row(3, 4) });
    const answers: CandidateInput<TensorAnswer>[] = [
      { inputId: 'a', answer: row(2, 2) },
      { inputId: 'b', unanswered: 'HTTP 500' },
    ];

    // Act
    const verdict = judgeTensors(judged(reference, answers), TENSOR);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
  });

  it('keeps only the worst examples asked for, each answer cut to a readable size', () => {
    // Prepare
    const long = (offset: number) => row(...Array.from({ length: 200 }, (_, index) => index + offset));
    const reference = answered({ a: long(0), b: long(0), c: long(0) });
    const answers = candidate({ a: long(0.5), b: long(2), c: long(1) });

    // Act
    const verdict = judgeTensors(judged(reference, answers, 2), TENSOR);

    // Assert
    expect(verdict.worstExamples.map((example) => example.inputId)).toEqual(['b', 'c']);
    for (const example of verdict.worstExamples) {
      expect(example.reference).toHaveLength(240);
      expect(example.reference.endsWith('…')).toBe(true);
      expect(example.candidate).toHaveLength(240);
    }
  });
});

describe('judgeClassifiers', () => {
  it('fails when fewer rows than the rule asks agree on their top class', () => {
    // Prepare: two inputs of two rows each; one row of b picks class 1 instead of 0
    const rows = (...values: number[]): TensorAnswer => ({
      shape: [2, 2],
      values: Float64Array.from(values),
    });
    const reference = answered({ a: rows(1, 0, 0, 1), b: rows(1, 0, 1, 0) });
    const answers = candidate({ a: rows(0.9, 0.1, 0.2, 0.8), b: rows(0.4, 0.6, 0.7, 0.3) });
    const strict: ClassifierRule = { ...TOP_1, minAgreementRate: 0.8 };

    // Act
    const verdict = judgeClassifiers(judged(reference, answers), strict);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toBe("top-1 agreement 0.75 (3 of 4 rows), below the rule's 0.8");
    expect(verdict.figures).toEqual({
      inputsCompared: 2,
      inputsLeftOut: 0,
      agreementRate: 0.75,
      rowsCompared: 4,
    });
    expect(verdict.worstExamples.map((example) => [example.inputId, example.distance])).toEqual([['b', 1]]);
  });

  it('passes at the agreement rate the rule allows', () => {
    // Prepare
    const reference = answered({ a: row(1, 0), b: row(1, 0), c: row(0, 1), d: row(0, 1) });
    const answers = candidate({ a: row(1, 0), b: row(1, 0), c: row(0, 1), d: row(1, 0) });

    // Act
    const verdict = judgeClassifiers(judged(reference, answers), TOP_1);

    // Assert
    expect(verdict.verdict).toBe('passed');
    expect(verdict.figures.agreementRate).toBe(0.75);
  });

  it('is unknown when the rule asks for more top classes than the answers have', () => {
    // Prepare
    const reference = answered({ a: row(1, 0) });

    // Act
    const verdict = judgeClassifiers(judged(reference, candidate({ a: row(1, 0) })), { ...TOP_1, topK: 3 });

    // Assert
    expect(verdict.verdict).toBe('unknown');
    expect(verdict.reason).toContain(
      "the reference answers 2 classes per row, fewer than the rule's topK 3: a",
    );
  });
});

describe('judgeGenerations', () => {
  it('passes answers whose first tokens match, with the rates over the prompt set', () => {
    // Prepare
    const reference = answered({ p1: words('the cat sat down today'), p2: words('yes it is') });
    const answers = candidate({ p1: words('the cat sat down tomorrow'), p2: words('yes it is') });

    // Act
    const verdict = judgeGenerations(judged(reference, answers), GENERATIVE);

    // Assert
    expect(verdict.verdict).toBe('passed');
    expect(verdict.figures).toEqual({
      inputsCompared: 2,
      inputsLeftOut: 0,
      exactMatchRate: 1,
      meanTokenF1: 1,
    });
    expect(verdict.worstExamples).toEqual([]);
  });

  it('fails when a quantized answer drifts, with both rates and the drifted answer as the worst example', () => {
    // Prepare
    const reference = answered({ p1: words('the cat sat down'), p2: words('yes it is') });
    const answers = candidate({ p1: words('a dog ran off'), p2: words('yes it is') });

    // Act
    const verdict = judgeGenerations(judged(reference, answers), { ...GENERATIVE, minExactMatchRate: 0.9 });

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.reason).toBe(
      "exact match of the first 4 tokens 0.5 (1 of 2), below the rule's 0.9; mean token F1 0.5, below the rule's 0.8",
    );
    expect(verdict.worstExamples).toEqual([
      {
        inputId: 'p1',
        distance: 1,
        reference: '["the","cat","sat","down"]',
        candidate: '["a","dog","ran","off"]',
      },
    ]);
  });

  it('fails when the candidate answers nothing to a prompt', () => {
    // Prepare
    const reference = answered({ p1: words('yes') });

    // Act
    const verdict = judgeGenerations(judged(reference, candidate({ p1: words('') })), GENERATIVE);

    // Assert
    expect(verdict.verdict).toBe('quality-failed');
    expect(verdict.worstExamples).toEqual([
      { inputId: 'p1', distance: 1, reference: '["yes"]', candidate: '[]' },
    ]);
  });

  it('is unknown when greedy decoding did not repeat: the reference answered every prompt differently twice', () => {
    // Prepare
    const reference: ReferenceAnswers<TokenAnswer> = {
      outcome: 'answered',
      inputs: [{ inputId: 'p1', answers: [words('the cat'), words('a cat')] }],
    };

    // Act
    const verdict = judgeGenerations(judged(reference, candidate({ p1: words('the cat') })), GENERATIVE);

    // Assert
    expect(verdict.verdict).toBe('unknown');
    expect(verdict.reason).toContain('no deterministic answer');
  });

  it('is unknown when the scorer failed or timed out, and says so', () => {
    // Prepare
    const rule: GenerativeRule = {
      kind: 'generative',
      firstTokens: 4,
      scorer: { command: ['python3', 'score.py'], minMeanScore: 0.7, timeoutSeconds: 30 },
    };
    const reference = answered({ p1: words('yes') });

    // Act
    const verdict = judgeGenerations(judged(reference, candidate({ p1: words('yes') })), rule, {
      outcome: 'failed',
      reason: 'timed out after 30 s',
    });

    // Assert
    expect(verdict.verdict).toBe('unknown');
    expect(verdict.reason).toBe('the scorer failed (timed out after 30 s)');
  });

  it('fails when the scorer’s mean score is below the rule’s, and is unknown when a score is out of range', () => {
    // Prepare
    const rule: GenerativeRule = {
      kind: 'generative',
      firstTokens: 4,
      scorer: {
        lambdaArn: 'arn:aws:lambda:us-east-1:123456789012:function:s',
        minMeanScore: 0.7,
        timeoutSeconds: 30,
      },
    };
    const reference = answered({ p1: words('yes'), p2: words('no') });
    const answers = candidate({ p1: words('yes'), p2: words('no') });

    // Act
    const low = judgeGenerations(judged(reference, answers), rule, {
      outcome: 'scored',
      scores: [
        { inputId: 'p1', score: 0.9 },
        { inputId: 'p2', score: 0.3 },
      ],
    });
    const outOfRange = judgeGenerations(judged(reference, answers), rule, {
      outcome: 'scored',
      scores: [
        { inputId: 'p1', score: 0.9 },
        { inputId: 'p2', score: 7 },
      ],
    });

    // Assert
    expect(low.verdict).toBe('quality-failed');
    expect(low.figures.meanScore).toBeCloseTo(0.6, 12);
    expect(low.reason).toBe("the scorer's mean score 0.6, below the rule's 0.7");
    expect(outOfRange.verdict).toBe('unknown');
    expect(outOfRange.reason).toBe('the scorer gave 7 for p2: expected a score from 0 to 1');
  });
});
