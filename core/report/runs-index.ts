import type { AsyncRunSummary } from '../contracts/index.js';
import { describeError, recordOf } from '../contracts/index.js';
import { objectiveFigure, objectiveFigureLabel } from './objective-figure.js';
import { escapeHtml } from './render-html.js';
import { deploymentText, environmentText, slaText } from './render-markdown.js';
import { proofNotHeld } from './render-serve-target.js';
import type { Report } from './report.js';

/**
 * The runs index (`runs/index.html` and `index.json`, and `npm run -s runs -- index` on AWS): one
 * row per run, built from each run's own report document (report.json, or an async run's
 * summary.json), so a folder deleted by hand simply drops out. The page is static HTML under the
 * reports' Content-Security-Policy: every figure and name is escaped, no script runs.
 */

export const RUNS_INDEX_HTML = 'index.html';
export const RUNS_INDEX_JSON = 'index.json';

/** How a run ended, as the index shows it; `tone` colours its cell. */
export const RunsIndexOutcomes = {
  recommended: 'recommended',
  partial: 'partial',
  noCandidateMetSla: 'no-candidate-met-sla',
  noCandidatePassedQuality: 'no-candidate-passed-quality',
  allCandidatesFailed: 'all-candidates-failed',
  proofNotHeld: 'proof-not-held',
  targetNotCarried: 'target-not-carried',
  asyncCompleted: 'async-completed',
  asyncPartial: 'async-partial',
  asyncAllInputsFailed: 'async-all-inputs-failed',
  running: 'running',
  failed: 'failed',
  unreadable: 'unreadable',
} as const;
export type RunsIndexOutcome = (typeof RunsIndexOutcomes)[keyof typeof RunsIndexOutcomes];

type Tone = 'ok' | 'warn' | 'bad' | 'muted';

const OUTCOME_LABELS: Readonly<Record<RunsIndexOutcome, { readonly label: string; readonly tone: Tone }>> = {
  recommended: { label: 'recommended', tone: 'ok' },
  partial: { label: 'recommended, some candidates failed', tone: 'warn' },
  'no-candidate-met-sla': { label: 'no recommendation: no candidate met the SLA', tone: 'bad' },
  'no-candidate-passed-quality': {
    label: 'no recommendation: no candidate that met the SLA kept to the quality rule',
    tone: 'bad',
  },
  'all-candidates-failed': { label: 'no recommendation: every candidate failed', tone: 'bad' },
  'proof-not-held': { label: 'proof not held at the target', tone: 'bad' },
  'target-not-carried': { label: 'no candidate carries the target', tone: 'bad' },
  'async-completed': { label: 'async: every input completed', tone: 'ok' },
  'async-partial': { label: 'async: some inputs failed', tone: 'warn' },
  'async-all-inputs-failed': { label: 'async: no input completed', tone: 'bad' },
  running: { label: 'running', tone: 'muted' },
  failed: { label: 'failed (no report)', tone: 'bad' },
  unreadable: { label: 'report unreadable', tone: 'bad' },
};

export function runsIndexOutcomeLabel(outcome: RunsIndexOutcome): string {
  return OUTCOME_LABELS[outcome].label;
}

/** Paths of a run's report files, relative to the index's folder. */
export interface RunsIndexLinks {
  readonly html?: string;
  readonly markdown?: string;
  readonly json?: string;
}

/** One row of the index (index.json holds these, newest first). */
export interface RunsIndexEntry {
  readonly runId: string;
  readonly workflow: 'optimization' | 'async-inference';
  readonly name?: string;
  /** ISO 8601: the report's date, else when the run started or its files were written. */
  readonly date?: string;
  readonly outcome: RunsIndexOutcome;
  readonly outcomeText: string;
  /** The recommended candidate: its id and variant (deployment, compiled or not, environment). */
  readonly winner?: { readonly candidateId: string; readonly variant: string };
  /** The winner's figure under the run's objective, with its unit. */
  readonly cost?: string;
  readonly sla?: string;
  /** Measured on this machine standing in for the instance types. */
  readonly measuredLocally?: boolean;
  /** Why there is no report, or what the report could not tell. */
  readonly note?: string;
  readonly links: RunsIndexLinks;
}

/**
 * A recommendation, but a target that no candidate that met the SLA can carry (the serve target
 * sized nothing): the run exits 7, as when a proof does not hold (core/contracts/exit-codes.ts).
 */
function notCarried(report: Report): boolean {
  return (
    report.recommendation !== null &&
    report.serveTarget !== undefined &&
    report.serveTarget.candidateId === undefined
  );
}

/** The row of an optimization run, from its report.json. */
export function indexEntryOfReport(report: Report, links: RunsIndexLinks): RunsIndexEntry {
  const outcome =
    proofNotHeld(report) !== undefined
      ? RunsIndexOutcomes.proofNotHeld
      : notCarried(report)
        ? RunsIndexOutcomes.targetNotCarried
        : optimizationOutcome(report.outcome);
  const rec = report.recommendation;
  const candidate = rec === null ? undefined : report.candidates.find(({ id }) => id === rec.candidateId);
  const winner =
    rec === null
      ? undefined
      : {
          candidateId: rec.candidateId,
          variant: [
            candidate === undefined
              ? `${rec.instanceType ?? 'unknown instance type'} × ${rec.instanceCount}`
              : deploymentText(candidate),
            rec.compiled
              ? candidate?.compiledFor === undefined
                ? 'compiled'
                : `compiled for ${candidate.compiledFor}`
              : 'not compiled',
            ...(Object.keys(rec.environment).length === 0
              ? []
              : [`environment ${environmentText(rec.environment)}`]),
          ].join(', '),
        };
  const figure = candidate === undefined ? undefined : objectiveFigure(report.objective, candidate);
  return {
    runId: report.runId,
    workflow: 'optimization',
    ...(report.name === undefined ? {} : { name: report.name }),
    date: report.generatedAt,
    outcome,
    outcomeText: report.outcomeText,
    ...(winner === undefined ? {} : { winner }),
    ...(figure?.value === undefined
      ? {}
      : { cost: `${figure.text} (${objectiveFigureLabel(report.objective).label})` }),
    sla: slaText(report),
    measuredLocally: report.measuredLocally,
    ...(report.recommendation === null && report.noRecommendationReason !== undefined
      ? { note: report.noRecommendationReason }
      : {}),
    links,
  };
}

function optimizationOutcome(outcome: Report['outcome']): RunsIndexOutcome {
  switch (outcome) {
    case 'recommended':
      return RunsIndexOutcomes.recommended;
    case 'partial':
      return RunsIndexOutcomes.partial;
    case 'no-candidate-met-sla':
      return RunsIndexOutcomes.noCandidateMetSla;
    case 'no-candidate-passed-quality':
      return RunsIndexOutcomes.noCandidatePassedQuality;
    case 'all-candidates-failed':
      return RunsIndexOutcomes.allCandidatesFailed;
  }
}

/** The row of an async run, from its summary.json (which carries no date: the caller knows it). */
export function indexEntryOfAsyncSummary(
  summary: AsyncRunSummary,
  options: { readonly date?: string; readonly links: RunsIndexLinks },
): RunsIndexEntry {
  const outcome =
    summary.outcome === 'completed'
      ? RunsIndexOutcomes.asyncCompleted
      : summary.outcome === 'partial'
        ? RunsIndexOutcomes.asyncPartial
        : RunsIndexOutcomes.asyncAllInputsFailed;
  return {
    runId: summary.runId,
    workflow: 'async-inference',
    ...(summary.name === undefined ? {} : { name: summary.name }),
    ...(options.date === undefined ? {} : { date: options.date }),
    outcome,
    outcomeText:
      `${summary.inputs} input(s) on endpoint ${summary.endpointName}: ${summary.completed} completed, ` +
      `${summary.failed} failed, ${summary.timedOut} timed out`,
    links: options.links,
  };
}

/**
 * The row of a report document as read from a file: report.json (optimization) or summary.json
 * (async), told apart by their fields; a document neither is gives an `unreadable` row that says
 * why, so one bad file never hides the other runs. The row's run id is the folder's (or the run
 * API's), the one its links and `runs status` use.
 */
export function indexEntryOfDocument(
  document: unknown,
  context: {
    readonly runId: string;
    readonly date?: string;
    readonly links: RunsIndexLinks;
    readonly source: string;
  },
): RunsIndexEntry {
  const record = recordOf(document);
  try {
    if (record !== undefined && Array.isArray(record.candidates) && typeof record.outcome === 'string') {
      return { ...indexEntryOfReport(document as Report, context.links), runId: context.runId };
    }
    if (
      record !== undefined &&
      typeof record.endpointName === 'string' &&
      typeof record.inputs === 'number'
    ) {
      return { ...indexEntryOfAsyncSummary(document as AsyncRunSummary, context), runId: context.runId };
    }
  } catch (error) {
    return unreadableEntry(
      context,
      `${context.source} could not be read as a report: ${describeError(error)}`,
    );
  }
  return unreadableEntry(
    context,
    `${context.source} is neither an optimization report (candidates, outcome) nor an async summary (endpointName, inputs)`,
  );
}

export function unreadableEntry(
  context: { readonly runId: string; readonly date?: string; readonly links: RunsIndexLinks },
  note: string,
): RunsIndexEntry {
  return {
    runId: context.runId,
    workflow: 'optimization',
    ...(context.date === undefined ? {} : { date: context.date }),
    outcome: RunsIndexOutcomes.unreadable,
    outcomeText: OUTCOME_LABELS.unreadable.label,
    note,
    links: context.links,
  };
}

/** Newest first; runs without a date last, then by run id (newest local ids sort last). */
export function sortRunsIndex(entries: readonly RunsIndexEntry[]): RunsIndexEntry[] {
  return [...entries].sort((a, b) => {
    if (a.date !== b.date) {
      if (a.date === undefined) return 1;
      if (b.date === undefined) return -1;
      return a.date < b.date ? 1 : -1;
    }
    return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
  });
}

/** index.json: the rows, newest first, and when and where the index was made. */
export interface RunsIndexDocument {
  readonly schemaVersion: 1;
  readonly generatedAt: string;
  /** Where the runs were read: a folder, or the run API's URL. */
  readonly source: string;
  readonly runs: readonly RunsIndexEntry[];
}

export function runsIndexDocument(
  entries: readonly RunsIndexEntry[],
  options: { readonly generatedAt: string; readonly source: string },
): RunsIndexDocument {
  return { schemaVersion: 1, ...options, runs: sortRunsIndex(entries) };
}

/** Same policy as the reports (render-html.ts): no fetch, no script; inline styles only. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d252c;
  margin: 0 auto; padding: 24px 32px 48px; max-width: 1400px; }
h1 { font-size: 24px; margin: 0 0 4px; } .meta { color: #607d8b; margin: 0 0 16px; }
table { border-collapse: collapse; font-size: 13px; } th, td { border: 1px solid #d7dde2; padding: 4px 8px; vertical-align: top; }
th { background: #f3f5f7; text-align: left; } td:nth-child(2), td:nth-child(3) { white-space: nowrap; } td:first-child { max-width: 320px; } td:nth-child(4) { min-width: 220px; } code { font: 12px ui-monospace, Menlo, Consolas, monospace; }
td.ok { background: #e8f5e9; } td.warn { background: #fff4e0; } td.bad { background: #fdecea; } td.muted { color: #607d8b; }
.note { color: #455a64; font-size: 12px; } .local { color: #b26a00; font-size: 12px; }
`;

/** The index page: one table row per run, newest first, each linking to its report files. */
export function renderRunsIndexHtml(document: RunsIndexDocument): string {
  const rows = document.runs.map((entry) => {
    const { tone } = OUTCOME_LABELS[entry.outcome];
    const cell = (text: string | undefined): string =>
      `<td>${text === undefined ? '–' : escapeHtml(text)}</td>`;
    const links = (
      [
        ['report', entry.links.html],
        ['markdown', entry.links.markdown],
        ['json', entry.links.json],
      ] as const
    )
      .flatMap(([label, path]) =>
        path === undefined ? [] : [`<a href="${escapeHtml(encodeLink(path))}">${label}</a>`],
      )
      .join(' · ');
    return [
      '<tr>',
      `<td><code>${escapeHtml(entry.runId)}</code>${entry.name === undefined ? '' : `<br>${escapeHtml(entry.name)}`}</td>`,
      cell(entry.workflow),
      cell(entry.date === undefined ? undefined : shortDate(entry.date)),
      `<td class="${tone}"><strong>${escapeHtml(runsIndexOutcomeLabel(entry.outcome))}</strong><br>` +
        `<span class="note">${escapeHtml(entry.outcomeText)}</span>` +
        `${entry.note === undefined ? '' : `<br><span class="note">${escapeHtml(entry.note)}</span>`}</td>`,
      entry.winner === undefined
        ? '<td>–</td>'
        : `<td><code>${escapeHtml(entry.winner.candidateId)}</code><br>${escapeHtml(entry.winner.variant)}</td>`,
      cell(entry.cost),
      `<td>${entry.sla === undefined ? '–' : escapeHtml(entry.sla)}${
        entry.measuredLocally === true ? '<br><span class="local">measured on this machine</span>' : ''
      }</td>`,
      `<td>${links === '' ? '–' : links}</td>`,
      '</tr>',
    ].join('');
  });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Runs</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<h1>Runs</h1>',
    `<p class="meta">${document.runs.length} run(s) in ${escapeHtml(document.source)}, newest first; written ${escapeHtml(document.generatedAt)}</p>`,
    document.runs.length === 0
      ? '<p>No runs yet.</p>'
      : [
          '<table>',
          '<thead><tr><th>run</th><th>workflow</th><th>date</th><th>outcome</th><th>winner</th><th>cost</th><th>SLA</th><th>files</th></tr></thead>',
          `<tbody>${rows.join('\n')}</tbody>`,
          '</table>',
        ].join('\n'),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** `2026-11-28 03:54 UTC` from an ISO 8601 date (index.json keeps the ISO form); other text as is. */
function shortDate(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match === null ? iso : `${match[1]} ${match[2]} UTC`;
}

/** A relative link: each path segment percent-encoded, so a run id cannot change the link's meaning. */
function encodeLink(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
