import { fileURLToPath } from 'node:url';

import { describe, expect, it } from '@jest/globals';

import { QUALITY_VERDICTS, type GenerativeRule } from '../../../core/contracts/quality.js';
import { judgeGenerations } from '../../../core/quality/judge.js';
import { scoreInputs, type ScoredInput } from '../../../core/quality/scorer-calls.js';
import { createCommandScorer, readScore } from '../../../local/adapters/command-scorer.js';

const ROUGE_L = fileURLToPath(new URL('../../../examples/scorers/rouge-l.js', import.meta.url));
const PAIR = {
  reference: { tokens: ['the', 'cat', 'sat', 'on', 'the', 'mat'] },
  candidate: { tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'] },
};
/** A deadline the programs below cannot miss by chance: each answers at once, or never. */
const GENEROUS_MS = 20_000;

/** A Node program given inline, as a scorer command. */
const nodeProgram = (source: string) => createCommandScorer([process.execPath, '-e', source]);

describe('createCommandScorer', () => {
  it('runs the example ROUGE-L scorer on both answers and reads its score', async () => {
    // Act
    const call = await createCommandScorer([process.execPath, ROUGE_L]).score(PAIR, GENEROUS_MS);

    // Assert: 5 of 6 words in order on each side.
    expect(call).toEqual({ ok: true, score: 5 / 6 });
  });

  it('fails when the scorer exits with an error, quoting what it said on stderr', async () => {
    // Act
    const call = await nodeProgram('process.stderr.write("no model loaded\\n"); process.exit(3)').score(
      PAIR,
      GENEROUS_MS,
    );

    // Assert
    expect(call).toEqual({ ok: false, problem: 'exited with code 3: no model loaded' });
  });

  it('fails when the scorer runs past its deadline, and kills it', async () => {
    // Act
    const call = await nodeProgram('setTimeout(() => {}, 60000)').score(PAIR, 300);

    // Assert
    expect(call).toEqual({ ok: false, problem: 'timed out after 0.3 s (killed)' });
  });

  it('fails when the scorer prints no score', async () => {
    // Act
    const call = await nodeProgram('console.log("looks fine")').score(PAIR, GENEROUS_MS);

    // Assert
    expect(call).toEqual({
      ok: false,
      problem: 'printed "looks fine": expected { "score": <number from 0 to 1> } or a number on stdout',
    });
  });

  it('fails when the program does not exist, naming it', async () => {
    // Act
    const call = await createCommandScorer(['/nonexistent/scorer']).score(PAIR, GENEROUS_MS);

    // Assert
    expect(call.ok).toBe(false);
    expect(!call.ok && call.problem).toContain('could not start /nonexistent/scorer');
  });

  it('gives the scorer both answers as JSON on stdin', async () => {
    // Prepare: a scorer that echoes the candidate's token count as its score.
    const echo = nodeProgram(
      'let s = ""; process.stdin.on("data", (c) => (s += c)); process.stdin.on("end", () => console.log(JSON.stringify({ score: JSON.parse(s).candidate.tokens.length / 10 })));',
    );

    // Act
    const call = await echo.score(PAIR, GENEROUS_MS);

    // Assert
    expect(call).toEqual({ ok: true, score: 0.6 });
  });
});

describe('readScore', () => {
  it.each([
    ['{"score": 0.5}', 0.5],
    ['0.25\n', 0.25],
  ])('reads %j as a score', (text, score) => {
    // Act
    const call = readScore(text);

    // Assert
    expect(call).toEqual({ ok: true, score });
  });
});

describe('a generative verdict with the user’s scorer', () => {
  const RULE: GenerativeRule = {
    kind: 'generative',
    firstTokens: 8,
    scorer: { command: ['scorer'], minMeanScore: 0.8, timeoutSeconds: 1 },
  };
  const INPUTS: ScoredInput[] = [
    { inputId: 'prompt-1', ...PAIR },
    { inputId: 'prompt-2', reference: PAIR.reference, candidate: PAIR.reference },
  ];

  function judgedWith(scorer: Awaited<ReturnType<typeof scoreInputs>>) {
    return judgeGenerations(
      {
        candidateId: 'int8',
        referenceId: 'fp32',
        reference: {
          outcome: 'answered',
          inputs: INPUTS.map((input) => ({ inputId: input.inputId, answers: [input.reference] })),
        },
        candidate: INPUTS.map((input) => ({ inputId: input.inputId, answer: input.candidate })),
        quality: { worstExamples: 2 },
      },
      RULE,
      scorer,
    );
  }

  it('passes on the scorer’s mean score when every call scored', async () => {
    // Act
    const scores = await scoreInputs(INPUTS, (input) =>
      createCommandScorer([process.execPath, ROUGE_L]).score(input, GENEROUS_MS),
    );
    const verdict = judgedWith(scores);

    // Assert
    expect(verdict.verdict).toBe(QUALITY_VERDICTS.passed);
    expect(verdict.figures.meanScore).toBeCloseTo((5 / 6 + 1) / 2, 12);
  });

  it('is unknown, naming the input and why, when the scorer times out', async () => {
    // Prepare
    const stuck = nodeProgram('setTimeout(() => {}, 60000)');

    // Act
    const scores = await scoreInputs(INPUTS, (input) => stuck.score(input, 300));
    const verdict = judgedWith(scores);

    // Assert
    expect(scores).toEqual({ outcome: 'failed', reason: 'prompt-1: timed out after 0.3 s (killed)' });
    expect(verdict.verdict).toBe(QUALITY_VERDICTS.unknown);
    expect(verdict.reason).toContain('the scorer failed (prompt-1: timed out after 0.3 s (killed))');
  });

  it('is unknown when the scorer gives a score outside 0–1', async () => {
    // Act
    const scores = await scoreInputs(INPUTS, () => nodeProgram('console.log(7)').score(PAIR, GENEROUS_MS));
    const verdict = judgedWith(scores);

    // Assert
    expect(verdict.verdict).toBe(QUALITY_VERDICTS.unknown);
    expect(verdict.reason).toContain('the scorer gave 7 for prompt-1: expected a score from 0 to 1');
  });
});
