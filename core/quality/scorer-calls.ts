import type { ScorerResults } from './judge.js';
import type { TokenAnswer } from './token-overlap.js';

/**
 * The user's scorer run over the compared inputs, one call per input, in order, into the results
 * `judgeGenerations` reads. The first call that fails (the program failed, timed out, or printed no
 * score) ends the scoring: a verdict with one input unscored is "unknown" whatever the others
 * scored, so further calls would only bill the candidate's endpoint longer. A score outside 0–1 is
 * kept as given: the verdict names it.
 */

export interface ScoredInput {
  readonly inputId: string;
  readonly reference: TokenAnswer;
  readonly candidate: TokenAnswer;
}

export type ScoreOne = (
  input: ScoredInput,
) => Promise<
  { readonly ok: true; readonly score: number } | { readonly ok: false; readonly problem: string }
>;

export async function scoreInputs(
  inputs: readonly ScoredInput[],
  scoreOne: ScoreOne,
): Promise<ScorerResults> {
  const scores: { inputId: string; score: number }[] = [];
  for (const input of inputs) {
    const call = await scoreOne(input);
    if (!call.ok) return { outcome: 'failed', reason: `${input.inputId}: ${call.problem}` };
    scores.push({ inputId: input.inputId, score: call.score });
  }
  return { outcome: 'scored', scores };
}
