import { chartedCandidates, chartedNote } from './chart-selection.js';
import type { ReportCharts } from './charts.js';
import { objectiveFigure, objectiveFigureLabel } from './objective-figure.js';
import type { Report } from './report.js';
import { candidateVerdictLabel } from './verdict-labels.js';

/**
 * report.html's "Charts": the three charts, and when they draw only the best few candidates, which
 * ones and a table of the others, so no measured candidate drops out of sight.
 */

export function figure(svg: string, caption: string, escapeHtml: (text: string) => string): string {
  return `<figure>${svg}<figcaption class="meta">${escapeHtml(caption)}</figcaption></figure>`;
}

function notShownTable(report: Report, escapeHtml: (text: string) => string): string {
  const { notShown } = chartedCandidates(report);
  if (notShown.length === 0) return '';
  const { label } = objectiveFigureLabel(report.objective);
  const head = ['Candidate', 'Verdict', `Objective: ${label}`, 'Sustainable TPS', 'p95 ms at it']
    .map((header) => `<th>${escapeHtml(header)}</th>`)
    .join('');
  const rows = notShown.map((candidate) => {
    const latency = candidate.latencyAtSustainableMs;
    // Anchors use the row number, as the summary table's do: ids are user text.
    const anchor = `#candidate-${report.candidates.indexOf(candidate) + 1}`;
    const cells = [
      `<a href="${anchor}">${escapeHtml(candidate.id)}</a>`,
      escapeHtml(candidateVerdictLabel(candidate)),
      escapeHtml(objectiveFigure(report.objective, candidate).text),
      candidate.sustainableTps === null ? '—' : candidate.sustainableTps.toFixed(1),
      latency === undefined ? '—' : latency.p95.toFixed(1),
    ];
    return `<tr class="${candidate.verdict}">${cells.map((cell, index) => `<td${index >= 3 ? ' class="number"' : ''}>${cell}</td>`).join('')}</tr>`;
  });
  return [
    '<h3 class="not-charted">Not drawn in the latency and throughput charts</h3>',
    `<div class="scroll"><table class="not-charted">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table></div>`,
  ].join('\n');
}

export function chartsHtml(
  report: Report,
  charts: ReportCharts,
  escapeHtml: (text: string) => string,
): string {
  const note = chartedNote(report, chartedCandidates(report));
  return [
    '<h2>Charts</h2>',
    note === undefined
      ? ''
      : `<p class="meta">${escapeHtml(`The latency and throughput charts are ${note}.`)}</p>`,
    figure(charts.latency, 'Latency percentiles of successful requests at each load step.', escapeHtml),
    figure(charts.throughput, 'Successful responses per second at each load step.', escapeHtml),
    charts.stream === undefined
      ? ''
      : figure(
          charts.stream,
          'Streamed responses: time to first token and the gap between tokens, p95 of each, at each load step (from histograms added over the workers).',
          escapeHtml,
        ),
    charts.tokens === undefined
      ? ''
      : figure(
          charts.tokens,
          'Streamed responses: output tokens per second at each load step (the step’s responses per second × its output tokens per response).',
          escapeHtml,
        ),
    figure(
      charts.costPer1M,
      'Cost per 1M inferences at the highest load that met the SLA: an upper bound for a candidate that met it at every step (not saturated; "≤" in the table).',
      escapeHtml,
    ),
    notShownTable(report, escapeHtml),
  ]
    .filter((part) => part !== '')
    .join('\n');
}
