import { qualitySection } from './quality-section.js';
import { renderReportCharts } from './charts.js';
import { baselineHtml } from './render-baseline.js';
import { payloadBreakdownIntro, payloadBreakdowns } from './payload-breakdown.js';
import { compiledComparisonHtml } from './compiled-comparison.js';
import { chartsHtml } from './render-charts.js';
import { candidateDeployHtml, deployHtml } from './render-deploy.js';
import {
  proofNotHeld,
  proofNotHeldHeadline,
  serveTargetHtml,
  serveTargetPolicyHtml,
} from './render-serve-target.js';
import { sweepHtml } from './render-sweep.js';
import type { Report } from './report.js';
import {
  candidateFacts,
  candidateOutcomeLines,
  compiledText,
  deploymentText,
  environmentText,
  ERROR_SAMPLES_PER_STEP,
  errorSampleLines,
  loadPlanText,
  MEASURED_LOCALLY_NOTICE,
  objectiveText,
  priceTableText,
  shortlistText,
  recommendationText,
  runCostText,
  slaText,
  stepTable,
  summaryTable,
  busyMachineNote,
  machineLoadText,
} from './render-markdown.js';
import type { TextTable } from './report-tables.js';
import { candidateVerdictLabel } from './verdict-labels.js';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/*
 * The page must open with no network: everything is inline, and the Content-Security-Policy
 * forbids any fetch and any script, so even a string that escaped escaping could not run or
 * call out. Inline SVG is part of the document and needs no source.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export const STYLE = `
:root { color-scheme: light; --ok: #2e7d32; --ok-bg: #e8f5e9; --warn: #b26a00; --warn-bg: #fff4e0;
  --bad: #c62828; --bad-bg: #fdecea; --muted: #607d8b; --line: #d7dde2; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d252c;
  margin: 0 auto; padding: 24px 32px 48px; max-width: 1240px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 6px; } .meta { color: var(--muted); margin: 0 0 16px; }
.banner { background: var(--warn-bg); border-left: 5px solid var(--warn); padding: 10px 14px; font-weight: 600; }
.recommendation { background: var(--ok-bg); border-left: 5px solid var(--ok); padding: 12px 16px; font-size: 15px; }
.recommendation.none { background: var(--bad-bg); border-left-color: var(--bad); }
.outcome { padding: 8px 14px; border-left: 5px solid var(--ok); background: var(--ok-bg); }
.outcome.partial { border-left-color: var(--warn); background: var(--warn-bg); }
.recommendation.unproven { background: var(--warn-bg); border-left-color: var(--warn); }
.outcome.no-candidate-met-sla, .outcome.all-candidates-failed, .outcome.proof-not-held, p.proof-not-held { border-left-color: var(--bad); background: var(--bad-bg); }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
th { background: #f3f5f7; text-align: left; } td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f5f7; padding: 1px 4px;
  border-radius: 3px; overflow-wrap: anywhere; }
tr.recommended td, tr.sustainable td { background: var(--ok-bg); } tr.missed-sla td, tr.missed td { background: var(--warn-bg); }
tr.failed td, tr.model-errors td, tr.stalled td, tr.quality-failed td { background: var(--bad-bg); } tr.skipped td { color: var(--muted); }
.verdict { display: inline-block; padding: 0 8px; border-radius: 10px; font-weight: 600; font-size: 12px; white-space: nowrap; }
.verdict.recommended { background: var(--ok); color: white; } .verdict.runner-up { background: #cfd8dc; }
.verdict.missed-sla, .verdict.measurement-problem, .verdict.quality-unknown { background: var(--warn); color: white; }
.verdict.failed, .verdict.model-errors, .verdict.stalled, .verdict.quality-failed { background: var(--bad); color: white; }
.verdict.skipped { background: #eceff1; color: var(--muted); }
.reason { margin: 4px 0; } .facts { margin: 4px 0 8px; padding-left: 20px; color: #37474f; }
.errors { margin: 4px 0; padding-left: 20px; } .errors li { font: 12px ui-monospace, Menlo, Consolas, monospace; }
table.summary td:nth-child(-n+3), table.summary td:nth-child(5) { white-space: nowrap; }
.scroll { overflow-x: auto; }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--muted); }
figure { margin: 16px 0; } figure svg { max-width: 100%; height: auto; }
.candidate { border-top: 1px dashed var(--line); }
`;

function cellHtml(text: string, kind: TextTable['columns'][number]['kind']): string {
  return kind === 'code' && text !== '—' ? `<code>${escapeHtml(text)}</code>` : escapeHtml(text);
}

function verdictBadge(candidate: Report['candidates'][number]): string {
  return `<span class="verdict ${candidate.verdict}">${escapeHtml(candidateVerdictLabel(candidate))}</span>`;
}

function htmlTable(
  table: TextTable,
  className: string,
  cellOverride?: (row: number, column: number) => string | undefined,
): string {
  const head = table.columns
    .map(
      (column) => `<th${column.kind === 'number' ? ' class="number"' : ''}>${escapeHtml(column.header)}</th>`,
    )
    .join('');
  const body = table.rows
    .map((row, rowIndex) => {
      const cells = row.cells
        .map((cell, columnIndex) => {
          const kind = table.columns[columnIndex]?.kind ?? 'text';
          const content = cellOverride?.(rowIndex, columnIndex) ?? cellHtml(cell, kind);
          return `<td${kind === 'number' ? ' class="number"' : ''}>${content}</td>`;
        })
        .join('');
      return `<tr class="${row.mark}">${cells}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table class="${className}">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

function summarySection(report: Report): string {
  const table = summaryTable(report);
  const candidateColumn = table.columns.findIndex((column) => column.header === 'Candidate');
  const verdictColumn = table.columns.findIndex((column) => column.header === 'Verdict');
  return htmlTable(table, 'summary', (row, column) => {
    const candidate = report.candidates[row];
    if (candidate === undefined) return undefined;
    // Anchors use the row number: candidate ids are user text and do not belong in an id attribute.
    if (column === candidateColumn) return `<a href="#candidate-${row + 1}">${escapeHtml(candidate.id)}</a>`;
    if (column === verdictColumn) return verdictBadge(candidate);
    return undefined;
  });
}

/** "Output quality", for a run with a quality guard; nothing otherwise. */
function qualityHtml(report: Report): string {
  const section = qualitySection(report);
  if (section === undefined) return '';
  return [
    '<h2>Output quality</h2>',
    `<p>${escapeHtml(section.intro)}</p>`,
    htmlTable(section.verdicts, 'quality'),
    ...section.examples.flatMap(({ heading, table }) => [
      `<h3>${escapeHtml(heading)}</h3>`,
      htmlTable(table, 'quality-examples'),
    ]),
  ].join('\n');
}

function candidateSection(report: Report, index: number): string {
  const candidate = report.candidates[index];
  if (candidate === undefined) return '';
  const environment = environmentText(candidate.environment);
  const samples = errorSampleLines(candidate);
  return [
    `<section class="candidate" id="candidate-${index + 1}">`,
    `<h3>${escapeHtml(candidate.id)} ${verdictBadge(candidate)}</h3>`,
    `<p>${escapeHtml(deploymentText(candidate))}, compiled: ${escapeHtml(compiledText(candidate))}, environment: ${cellHtml(environment, 'code')}</p>`,
    `<p class="reason"><strong>Reason:</strong> ${escapeHtml(candidate.reason)}</p>`,
    `<ul class="facts">${candidateFacts(candidate)
      .map((fact) => `<li>${escapeHtml(fact)}</li>`)
      .join('')}</ul>`,
    candidate.steps.length === 0
      ? '<p>No load step was measured.</p>'
      : htmlTable(stepTable(report, candidate), 'steps'),
    samples.length === 0
      ? ''
      : `<p>First errors (up to ${ERROR_SAMPLES_PER_STEP} per step):</p><ul class="errors">${samples
          .map((sample) => `<li>${escapeHtml(sample)}</li>`)
          .join('')}</ul>`,
    candidateDeployHtml(candidate, escapeHtml),
    '</section>',
  ].join('\n');
}

/** "Latency by payload", for a run that sent a mix of payloads; nothing otherwise. */
function payloadSection(report: Report): string {
  const intro = payloadBreakdownIntro(report);
  if (intro === undefined) return '';
  return [
    '<h2>Latency by payload</h2>',
    `<p>${escapeHtml(intro)}</p>`,
    ...payloadBreakdowns(report).map(
      ({ candidate, where, table }) =>
        `<h3>${escapeHtml(candidate.id)}, ${escapeHtml(where)}</h3>\n${htmlTable(table, 'payloads')}`,
    ),
  ].join('\n');
}

/**
 * report.html: one self-contained page (inline CSS and SVG charts, no script, no external
 * resource) with the same content as report.md. Async because Vega renders SVG asynchronously.
 */
export async function renderHtmlReport(report: Report): Promise<string> {
  const charts = await renderReportCharts(report);
  const title = report.name === undefined ? report.runId : `${report.name} (${report.runId})`;
  const notHeld = proofNotHeld(report);
  const recommendationClass =
    report.recommendation === null
      ? 'recommendation none'
      : notHeld === undefined
        ? 'recommendation'
        : 'recommendation unproven';
  const busy = busyMachineNote(report);
  const machine = machineLoadText(report);
  // The first screen answers, in order: the verdict and the winner (or why none), the money, the
  // main chart and the candidate table; context, details and the deploy code follow.
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Optimization report: ${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>Optimization report: ${escapeHtml(title)}</h1>`,
    `<p class="meta">Run <code>${escapeHtml(report.runId)}</code>, generated ${escapeHtml(report.generatedAt)}</p>`,
    report.measuredLocally ? `<p class="banner">${escapeHtml(MEASURED_LOCALLY_NOTICE)}</p>` : '',
    '<h2>Outcome</h2>',
    notHeld === undefined
      ? ''
      : `<p class="outcome proof-not-held"><strong>${escapeHtml(proofNotHeldHeadline(notHeld))}.</strong></p>`,
    `<p class="outcome ${report.outcome}"><strong>${escapeHtml(report.outcomeText)}</strong> (outcome <code>${escapeHtml(report.outcome)}</code>)</p>`,
    busy === undefined ? '' : `<p class="banner busy">${escapeHtml(busy)}</p>`,
    '<h2>Recommendation</h2>',
    `<p class="${recommendationClass}">${escapeHtml(recommendationText(report))}</p>`,
    serveTargetHtml(report, escapeHtml, charts.ramp),
    sweepHtml(report, charts.sweep, escapeHtml),
    chartsHtml(report, charts, escapeHtml),
    '<h2>Candidates</h2>',
    shortlistText(report) === undefined ? '' : `<p>${escapeHtml(shortlistText(report) ?? '')}</p>`,
    summarySection(report),
    `<ul class="outcomes">${candidateOutcomeLines(report)
      .map((line) => `<li>${escapeHtml(line)}</li>`)
      .join('')}</ul>`,
    baselineHtml(report, escapeHtml),
    compiledComparisonHtml(report, escapeHtml),
    qualityHtml(report),
    '<h2>SLA and objective</h2>',
    '<ul>',
    `<li><strong>SLA:</strong> ${escapeHtml(slaText(report))}</li>`,
    `<li><strong>Objective:</strong> ${escapeHtml(objectiveText(report))}</li>`,
    `<li><strong>Load:</strong> ${escapeHtml(loadPlanText(report))}</li>`,
    machine === undefined ? '' : `<li><strong>Machine:</strong> ${escapeHtml(machine)}</li>`,
    '</ul>',
    '<h2>Candidate details</h2>',
    ...report.candidates.map((_, index) => candidateSection(report, index)),
    payloadSection(report),
    '<h2>Prices and cost</h2>',
    `<p>${escapeHtml(priceTableText(report))}</p>`,
    `<p>${escapeHtml(runCostText(report))}</p>`,
    deployHtml(report, escapeHtml),
    serveTargetPolicyHtml(report, escapeHtml),
    '</body>',
    '</html>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n')
    .concat('\n');
}
