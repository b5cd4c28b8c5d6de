import type { CandidateReport, CompiledComparison, Report } from './report.js';

/**
 * Each compiled candidate against the uncompiled one on the same instance type and settings, at the
 * first load step (the same load for both): the speed-up comes from the compiled artifact alone.
 * Computed once into report.json's `compiledComparisons`; the terminal summary, report.md and
 * report.html print it.
 */
export function compiledComparisons(candidates: readonly CandidateReport[]): CompiledComparison[] {
  const comparisons: CompiledComparison[] = [];
  for (const compiled of candidates.filter((c) => c.compiled && c.steps[0] !== undefined)) {
    const baseline = candidates.find(
      (c) =>
        !c.compiled &&
        c.instanceType === compiled.instanceType &&
        JSON.stringify(c.environment) === JSON.stringify(compiled.environment) &&
        c.steps[0]?.load === compiled.steps[0]?.load,
    );
    const before = baseline?.steps[0];
    const after = compiled.steps[0];
    if (baseline === undefined || before === undefined || after === undefined) continue;
    // A step where no request succeeded has no latency to compare.
    const [was, is] = [before.latencyMs, after.latencyMs];
    if (was === null || is === null) continue;
    comparisons.push({
      ...(compiled.instanceType === undefined ? {} : { instanceType: compiled.instanceType }),
      uncompiledId: baseline.id,
      compiledId: compiled.id,
      ...(compiled.compiledFor === undefined ? {} : { compiledFor: compiled.compiledFor }),
      load: after.load,
      p50Ms: { uncompiled: was.p50, compiled: is.p50 },
      p50ChangePercent: Math.round((is.p50 / was.p50 - 1) * 1000) / 10,
      tps: { uncompiled: before.tps, compiled: after.tps },
    });
  }
  return comparisons;
}

function rate(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

/** `compiled vs uncompiled on ml.c5.large (c5 → c5-neo, load 1): p50 3.20 → 1.60 ms (-50 %), 280 → 560 req/s`. */
export function compiledComparisonText(c: CompiledComparison): string {
  const change = c.p50ChangePercent;
  return (
    `compiled vs uncompiled on ${c.instanceType ?? '?'} (${c.uncompiledId} → ${c.compiledId}, load ${c.load}): ` +
    `p50 ${c.p50Ms.uncompiled.toFixed(2)} → ${c.p50Ms.compiled.toFixed(2)} ms (${change >= 0 ? '+' : ''}${change.toFixed(0)} %), ` +
    `${rate(c.tps.uncompiled)} → ${rate(c.tps.compiled)} req/s`
  );
}

const INTRO =
  'Each compiled candidate against the uncompiled one on the same instance type and settings, at the first load step (the same load for both).';

/** report.md's "Compiled vs uncompiled", or nothing when the run has no such pair. */
export function compiledComparisonMarkdown(
  report: Report,
  escapeMarkdown: (text: string) => string,
): string[] {
  const comparisons = report.compiledComparisons ?? [];
  if (comparisons.length === 0) return [];
  return [
    '## Compiled vs uncompiled',
    '',
    escapeMarkdown(INTRO),
    '',
    ...comparisons.map((c) => `- ${escapeMarkdown(compiledComparisonText(c))}`),
    '',
  ];
}

/** report.html's "Compiled vs uncompiled", or nothing. */
export function compiledComparisonHtml(report: Report, escapeHtml: (text: string) => string): string {
  const comparisons = report.compiledComparisons ?? [];
  if (comparisons.length === 0) return '';
  return [
    '<h2>Compiled vs uncompiled</h2>',
    `<p>${escapeHtml(INTRO)}</p>`,
    `<ul>${comparisons.map((c) => `<li>${escapeHtml(compiledComparisonText(c))}</li>`).join('')}</ul>`,
  ].join('\n');
}
