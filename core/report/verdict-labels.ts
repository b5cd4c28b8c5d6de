import type { CandidateReport, CandidateVerdict } from './report.js';

/** Each verdict as the report's sentences, tables and headings name it. */
const VERDICT_LABELS: Readonly<Record<CandidateVerdict, string>> = {
  recommended: 'recommended',
  'runner-up': 'runner-up',
  'missed-sla': 'missed SLA',
  'quality-failed': 'failed the quality rule',
  'quality-unknown': 'quality not judged',
  stalled: 'stalled',
  'model-errors': 'model errors',
  'measurement-problem': 'measurement problem',
  failed: 'failed',
  skipped: 'skipped',
};

export function verdictLabel(verdict: CandidateVerdict): string {
  return VERDICT_LABELS[verdict];
}

/** A candidate's verdict as tables and headings show it: a miss within the run's noise is a near miss. */
export function candidateVerdictLabel(candidate: Pick<CandidateReport, 'verdict' | 'nearMiss'>): string {
  return candidate.nearMiss === undefined
    ? VERDICT_LABELS[candidate.verdict]
    : `${VERDICT_LABELS[candidate.verdict]} (near miss)`;
}
