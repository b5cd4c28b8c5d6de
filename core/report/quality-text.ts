import {
  QUALITY_VERDICTS,
  type PlannedQuality,
  type QualityFigures,
  type QualityRule,
  type QualityVerdictSummary,
} from '../contracts/index.js';

/**
 * The output-quality guard in words, as the plan, the report, the summary and the notice say it:
 * the rule, a verdict's figures, and whether a verdict keeps a candidate out of the ranking.
 */

function percent(rate: number): string {
  const value = rate * 100;
  return `${Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1)} %`;
}

/** A difference as a reader compares it with a tolerance: 3 significant digits, exponent when small. */
function difference(value: number): string {
  if (value === 0) return '0';
  return Math.abs(value) < 1e-3 || Math.abs(value) >= 1e4 ? value.toExponential(2) : value.toPrecision(3);
}

/** The rule in one phrase, e.g. "classifier: the same top class in at least 99 % of rows". */
export function qualityRuleText(rule: QualityRule): string {
  switch (rule.kind) {
    case 'tensor':
      return (
        `tensor: every element within ${difference(rule.maxAbsoluteDifference)} + ` +
        `${difference(rule.maxRelativeDifference)} × |reference| of the reference's`
      );
    case 'classifier':
      return rule.topK === 1
        ? `classifier: the same top class in at least ${percent(rule.minAgreementRate)} of rows`
        : `classifier: the same ${rule.topK} highest classes in at least ${percent(rule.minAgreementRate)} of rows`;
    case 'generative': {
      const bounds = [
        rule.minExactMatchRate === undefined ? undefined : `exact match ≥ ${percent(rule.minExactMatchRate)}`,
        rule.minMeanTokenF1 === undefined ? undefined : `mean token F1 ≥ ${rule.minMeanTokenF1}`,
        rule.scorer === undefined ? undefined : `the scorer's mean ≥ ${rule.scorer.minMeanScore}`,
      ].filter((bound): bound is string => bound !== undefined);
      return `generative, greedy: the first ${rule.firstTokens} tokens, ${bounds.join(', ')}`;
    }
  }
}

/** The guard as a plan states it: the rule, against which candidate, and what an unknown verdict does. */
export function plannedQualityText(quality: PlannedQuality): string {
  return (
    `answers compared with ${quality.referenceCandidateId}'s by the rule ${qualityRuleText(quality.rule)}; ` +
    (quality.allowUnknown
      ? 'a candidate whose answers cannot be judged may still be recommended'
      : 'a candidate whose answers fail the rule or cannot be judged is not recommended')
  );
}

/** A verdict's figures in a few words, e.g. "top-1 agreement 98.4 % over 64 rows". */
export function qualityFiguresText(figures: QualityFigures, rule: QualityRule): string {
  const parts: string[] = [];
  if (figures.maxAbsoluteDifference !== undefined)
    parts.push(`max |Δ| ${difference(figures.maxAbsoluteDifference)}`);
  if (figures.maxRelativeDifference !== undefined)
    parts.push(`max relative Δ ${difference(figures.maxRelativeDifference)}`);
  if (figures.agreementRate !== undefined) {
    const label = rule.kind === 'classifier' && rule.topK > 1 ? `top-${rule.topK}` : 'top-1';
    parts.push(
      `${label} agreement ${percent(figures.agreementRate)}` +
        (figures.rowsCompared === undefined ? '' : ` over ${figures.rowsCompared} rows`),
    );
  }
  if (figures.exactMatchRate !== undefined) parts.push(`exact match ${percent(figures.exactMatchRate)}`);
  if (figures.meanTokenF1 !== undefined) parts.push(`mean token F1 ${figures.meanTokenF1.toFixed(3)}`);
  if (figures.meanScore !== undefined) parts.push(`scorer mean ${figures.meanScore.toFixed(3)}`);
  if (parts.length === 0) parts.push(`${figures.inputsCompared} inputs compared`);
  return parts.join(', ');
}

/** A table cell: the verdict, then its figures ("passed: top-1 agreement 100 % over 64 rows"). */
export function qualityCellText(
  verdict: QualityVerdictSummary | undefined,
  isReference: boolean,
  rule: QualityRule,
): string {
  if (isReference) return 'reference';
  if (verdict === undefined) return '–';
  if (verdict.verdict === QUALITY_VERDICTS.unknown) return 'unknown';
  return `${verdict.verdict}: ${qualityFiguresText(verdict.figures, rule)}`;
}
