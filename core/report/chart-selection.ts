import { byObjective } from './objective-figure.js';
import type { CandidateReport, Report } from './report.js';

/**
 * Which candidates the latency and throughput charts draw. One line (two for latency) per
 * candidate stays readable up to about eight; past that the colours repeat and the lines tangle,
 * so the charts draw the best few under the objective, the recommendation first, and the page
 * lists the rest in a table beside them.
 */

/** Up to this many measured candidates, the charts draw every one. */
export const MAX_CHARTED_CANDIDATES = 8;
/** Past it, they draw this many: the recommendation and the next best under the objective. */
export const TOP_CHARTED_CANDIDATES = 6;

export interface ChartedCandidates {
  /** Drawn, in legend order: report order when all are drawn, else best first. */
  readonly shown: readonly CandidateReport[];
  /** Measured but not drawn, best first; empty when all are drawn. */
  readonly notShown: readonly CandidateReport[];
}

export function chartedCandidates(report: Report): ChartedCandidates {
  const measured = report.candidates.filter((candidate) => candidate.steps.length > 0);
  if (measured.length <= MAX_CHARTED_CANDIDATES) return { shown: measured, notShown: [] };
  const compare = byObjective(report.objective);
  const ranked = [...measured].sort(
    (a, b) => Number(b.verdict === 'recommended') - Number(a.verdict === 'recommended') || compare(a, b),
  );
  return {
    shown: ranked.slice(0, TOP_CHARTED_CANDIDATES),
    notShown: ranked.slice(TOP_CHARTED_CANDIDATES),
  };
}

/** The charts' note when some candidates are not drawn: `the 6 best of 20 measured candidates …`. */
export function chartedNote(report: Report, charted: ChartedCandidates): string | undefined {
  if (charted.notShown.length === 0) return undefined;
  const total = charted.shown.length + charted.notShown.length;
  return (
    `showing the ${charted.shown.length} best of ${total} measured candidates under ${report.objective}` +
    `${report.recommendation === null ? '' : ' (the recommendation first)'}; the other ${charted.notShown.length} are in the table below the charts`
  );
}
