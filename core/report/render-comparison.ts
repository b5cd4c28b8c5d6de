import { FIGURE_LABELS, FIGURE_NAMES, formatFigure, signedPercent } from './compare-runs.js';
import { textTable } from './text-table.js';
import { escapeMarkdown } from './markdown-text.js';
import type {
  FigureComparison,
  FigureName,
  MeasuredFigure,
  RunComparison,
  RunSide,
} from '../contracts/index.js';

/**
 * A run comparison (compare-runs.ts) for people: one row per candidate and figure (base, new,
 * change, verdict), as a Markdown table or a padded terminal table, with the run's verdict, the
 * recommendation and what could not be matched above and below it.
 */

const NONE = '—';
const HEADERS = ['candidate', 'figure', 'base', 'new', 'change', 'verdict'] as const;

/** "577.2 (573.0–588.4)": the reported value and, when measured more than once, its range. */
export function figureCell(name: FigureName, figure: MeasuredFigure | null): string {
  if (figure === null) return NONE;
  const value = formatFigure(name, figure.value);
  const range = figure.range;
  if (range === undefined) return value;
  return `${value} (${formatFigure(name, range.min)}–${formatFigure(name, range.max)})`;
}

/** "-190.8 (-33.1 %)", "+$0.0012 (+2.4 %)". */
export function changeCell(name: FigureName, figure: FigureComparison): string {
  if (figure.change === null) return NONE;
  const sign = figure.change > 0 ? '+' : figure.change < 0 ? '-' : '';
  const amount = `${sign}${formatFigure(name, Math.abs(figure.change))}`;
  return figure.changePercent === null ? amount : `${amount} (${signedPercent(figure.changePercent)})`;
}

/** The verdict and, when it was not a comparison of measured ranges, how it was reached. */
export function verdictCell(figure: FigureComparison, tolerancePercent: number): string {
  switch (figure.basis) {
    case 'noise':
      return `${figure.verdict} (noise ±${figure.noisePercent ?? '?'} %)`;
    case 'ranges':
      return figure.verdict;
    case 'tolerance':
      return `${figure.verdict} (no spread measured: ${figure.verdict === 'within noise' ? 'within' : 'beyond'} ±${tolerancePercent} %)`;
    case 'sla':
      return `${figure.verdict} (${figure.base === null ? 'now meets the SLA' : 'no longer meets the SLA'})`;
    case 'load':
      return `${figure.verdict} (at load ${figure.loads?.base ?? '?'} vs ${figure.loads?.new ?? '?'})`;
    case 'missing':
      return `${figure.verdict} (${figure.base === null ? (figure.new === null ? 'in neither run' : 'not in base') : 'not in new'})`;
  }
}

function rowsOf(comparison: RunComparison): string[][] {
  return comparison.candidates.flatMap((candidate) =>
    FIGURE_NAMES.map((name) => {
      const figure = candidate.figures[name];
      return [
        candidate.id,
        FIGURE_LABELS[name],
        figureCell(name, figure.base),
        figureCell(name, figure.new),
        changeCell(name, figure),
        verdictCell(figure, comparison.tolerancePercent),
      ];
    }),
  );
}

function sideText(side: RunSide): string {
  return `${side.runId} (${side.generatedAt})`;
}

/** The lines above and below the table, shared by both renderings (plain text, unescaped). */
function summaryLines(comparison: RunComparison): { head: string[]; tail: string[] } {
  const { recommendation } = comparison;
  const recommended = (id: string | null): string => id ?? 'nothing';
  const head = [
    `Verdict: ${comparison.verdict}: ${comparison.verdictReason}`,
    `Recommendation: ${recommended(recommendation.base)} → ${recommended(recommendation.new)} (${recommendation.changed ? 'changed' : 'unchanged'})`,
  ];
  const tail: string[] = [];
  for (const candidate of comparison.candidates) {
    tail.push(`${candidate.id}: ${candidate.change}: ${candidate.reason}`);
    if (candidate.configurationNote !== undefined)
      tail.push(`${candidate.id}: ${candidate.configurationNote}`);
  }
  if (comparison.onlyInBase.length > 0) tail.push(`Only in base: ${comparison.onlyInBase.join(', ')}`);
  if (comparison.onlyInNew.length > 0) tail.push(`Only in new: ${comparison.onlyInNew.join(', ')}`);
  for (const note of comparison.notes) tail.push(`Note: ${note}`);
  tail.push(
    'Beyond noise: the change exceeds what the runs’ measured noise explains at 95 % (their repeats’ spread, pooled ' +
      'over both runs’ candidates); reports without that figure are judged on their min–max ranges, and runs without ' +
      `repeats against ±${comparison.tolerancePercent} %.`,
  );
  return { head, tail };
}

/** The comparison as Markdown: a heading, the verdict, one table row per candidate and figure. */
export function renderComparisonMarkdown(comparison: RunComparison): string {
  const { head, tail } = summaryLines(comparison);
  const cell = (text: string): string => escapeMarkdown(text);
  const row = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const rows = rowsOf(comparison);
  return [
    `# Run comparison: ${escapeMarkdown(comparison.base.runId)} → ${escapeMarkdown(comparison.new.runId)}`,
    '',
    `Base ${cell(sideText(comparison.base))}, new ${cell(sideText(comparison.new))}.`,
    '',
    ...head.map((line) => `- ${cell(line)}`),
    '',
    ...(rows.length === 0
      ? ['No candidate is in both runs.']
      : [row(HEADERS), `|${HEADERS.map(() => ' --- ').join('|')}|`, ...rows.map(row)]),
    '',
    ...tail.map((line) => `- ${cell(line)}`),
    '',
  ].join('\n');
}

/** The comparison for a terminal: padded columns, the verdict first. */
export function renderComparisonText(comparison: RunComparison): string {
  const { head, tail } = summaryLines(comparison);
  const rows = rowsOf(comparison);
  return [
    `Comparing ${sideText(comparison.base)} → ${sideText(comparison.new)}`,
    ...head,
    '',
    ...(rows.length === 0 ? ['  No candidate is in both runs.'] : textTable(HEADERS, rows)),
    '',
    ...tail,
  ].join('\n');
}
