/**
 * How two generated answers compare on their first N tokens: whether they match exactly, and their
 * token-level F1, the overlap score of SQuAD's evaluation (Rajpurkar et al., 2016,
 * https://arxiv.org/abs/1606.05250): the tokens the two answers share, counted as multisets,
 * precision over the candidate's tokens and recall over the reference's, F1 their harmonic mean.
 *
 * F1 rather than a positional match: a quantized model that inserts one word early shifts every
 * later token, and a position-by-position score would call the rest of an otherwise equal answer
 * wrong; F1 still credits the shared tokens, and it is symmetric and bounded by 0 and 1. Order is
 * what the exact-match rate judges.
 */

/** An answer decoded greedily, as its tokens (ids or texts, compared as given), in order. */
export interface TokenAnswer {
  readonly tokens: readonly string[];
}

export interface TokenComparison {
  readonly exactMatch: boolean;
  readonly f1: number;
}

/** The first `firstTokens` tokens of each answer, compared. Two empty answers match (F1 1). */
export function compareTokens(
  reference: TokenAnswer,
  candidate: TokenAnswer,
  firstTokens: number,
): TokenComparison {
  const expected = reference.tokens.slice(0, firstTokens);
  const got = candidate.tokens.slice(0, firstTokens);
  const exactMatch = expected.length === got.length && expected.every((token, index) => token === got[index]);
  return { exactMatch, f1: tokenF1(expected, got) };
}

/** Token-level F1 of two token lists; 1 when both are empty, 0 when only one is. */
export function tokenF1(reference: readonly string[], candidate: readonly string[]): number {
  if (reference.length === 0 || candidate.length === 0) {
    return reference.length === candidate.length ? 1 : 0;
  }
  const remaining = new Map<string, number>();
  for (const token of reference) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let shared = 0;
  for (const token of candidate) {
    const left = remaining.get(token) ?? 0;
    if (left > 0) {
      shared += 1;
      remaining.set(token, left - 1);
    }
  }
  if (shared === 0) return 0;
  const precision = shared / candidate.length;
  const recall = shared / reference.length;
  return (2 * precision * recall) / (precision + recall);
}
