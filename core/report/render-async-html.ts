import type { Distribution } from '../contracts/index.js';
import { figure } from './render-charts.js';
import { CONTENT_SECURITY_POLICY, escapeHtml, STYLE } from './render-html.js';
import type { AsyncReport } from './async-report.js';
import { type AsyncReportCharts, renderAsyncReportCharts } from './async-report-charts.js';

/**
 * The async run's report.html: one self-contained page (inline CSS and SVG, no script, the
 * optimization report's content security policy). Its first screen answers: how the run ended and
 * what it cost, then the charts over time; figures, notes and files follow.
 */

export const ASYNC_MEASURED_LOCALLY_NOTICE =
  "Measured locally: model server processes on this machine's CPU stood in for the endpoint's " +
  'instances, and scaling cooldowns were shortened. Costs are the listed AWS rate applied to the ' +
  'local instance-hours.';

const OUTCOME_CLASSES: Readonly<Record<AsyncReport['outcome'], string>> = {
  completed: 'outcome',
  partial: 'outcome partial',
  'all-inputs-failed': 'outcome all-candidates-failed',
};

function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en-US')} ms`;
}

function distribution(value: Distribution | null): string {
  return value === null
    ? 'n/a'
    : `p50 ${ms(value.p50)}, p90 ${ms(value.p90)}, p99 ${ms(value.p99)}, max ${ms(value.max)}`;
}

/** Dollars, with two significant digits for amounts under a cent (a short local run costs fractions). */
function usd(value: number | null): string {
  if (value === null) return 'n/a';
  return value < 0.01 && value > 0 ? `$${value.toPrecision(2)}` : `$${value.toFixed(2)}`;
}

function rows(pairs: readonly (readonly [string, string])[], className: string): string {
  const body = pairs
    .map(
      ([name, value]) => `<tr><th>${escapeHtml(name)}</th><td class="number">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table class="${className}">\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

function outcomeSection(report: AsyncReport): string {
  const { counts } = report;
  return [
    '<h2>Outcome</h2>',
    `<p class="${OUTCOME_CLASSES[report.outcome]}"><strong>${escapeHtml(report.outcomeText)}</strong> (outcome <code>${escapeHtml(report.outcome)}</code>)</p>`,
    `<p class="counts">${escapeHtml(
      `${counts.inputs} input(s): ${counts.completed} completed, ${counts.failed} failed, ${counts.timedOut} timed out`,
    )}</p>`,
  ].join('\n');
}

function instanceSeconds(seconds: number): string {
  return seconds < 10 ? seconds.toFixed(1) : Math.round(seconds).toLocaleString('en-US');
}

/** The money in one line: instance-hours, their cost at the listed price, the plan's bound. */
export function moneyText(money: AsyncReport['money']): string {
  const hours =
    money.instanceHours === null
      ? 'instance-hours unknown'
      : `${money.instanceHours.toFixed(4)} instance-hours (${instanceSeconds(money.instanceHours * 3600)} instance-seconds)`;
  const price =
    money.usdPerInstanceHour === null ? 'no listed price' : `$${money.usdPerInstanceHour} per instance-hour`;
  return `${hours}: ${usd(money.costUsd)} at ${price}; the plan’s upper bound was ${usd(money.estimatedUsd)}`;
}

function moneySection(report: AsyncReport): string {
  return [
    '<h2>Cost</h2>',
    `<p class="money"><strong>${escapeHtml(moneyText(report.money))}</strong></p>`,
    `<p class="meta">${escapeHtml(report.money.basis)}</p>`,
  ].join('\n');
}

function chartsSection(charts: AsyncReportCharts): string {
  return [
    '<h2>Over time</h2>',
    figure(
      charts.backlog,
      'Solid: inputs the workflow sent and had no result for yet. Dashed: the endpoint’s ApproximateBacklogSize as recorded (every change locally; each minute’s maximum from CloudWatch on AWS).',
      escapeHtml,
    ),
    figure(
      charts.instances,
      'Instances in service: the count when the invocations started, then a step at each scaling activity that completed.',
      escapeHtml,
    ),
    figure(charts.completions, 'Inputs with a result, cumulative, by result.', escapeHtml),
    figure(
      charts.latency,
      'Each input’s time from invocation to result (queue, scale-out and processing included), stacked by result.',
      escapeHtml,
    ),
  ].join('\n');
}

function figuresSection(report: AsyncReport): string {
  const { figures, benchmark, generative } = report;
  const pairs: [string, string][] = [
    ['First invocation → last result', ms(figures.makespanMs)],
    [
      'Drain rate',
      figures.drainRatePerMinute === null ? 'n/a' : `${figures.drainRatePerMinute.toFixed(1)} results/min`,
    ],
    ['Invocation → result (workflow)', distribution(figures.totalMs)],
    ['Time in SageMaker (queue + processing)', distribution(figures.timeInSageMakerMs)],
  ];
  if (benchmark !== undefined) {
    pairs.push(
      ['Burst size', String(benchmark.burstSize)],
      [
        'Instances at burst start',
        benchmark.instancesAtStart === null ? 'n/a' : String(benchmark.instancesAtStart),
      ],
      ['Scale-out from zero', ms(benchmark.scaleOutFromZeroMs)],
      ['Burst start → first result', ms(benchmark.firstResultMs)],
      ['Burst start → last result', ms(benchmark.drainMs)],
      [
        'Time in backlog (average / max)',
        benchmark.timeInBacklogMs === null
          ? 'n/a'
          : `${ms(benchmark.timeInBacklogMs.average)} / ${ms(benchmark.timeInBacklogMs.maximum)}`,
      ],
      ['Largest backlog', benchmark.maxBacklogSize === null ? 'n/a' : String(benchmark.maxBacklogSize)],
    );
  }
  if (generative !== undefined) {
    pairs.push(
      ['Output tokens', generative.outputTokens.toLocaleString('en-US')],
      [
        'Output tokens per second (over the makespan)',
        generative.outputTokensPerSecond === null ? 'n/a' : generative.outputTokensPerSecond.toFixed(1),
      ],
    );
  }
  return ['<h2>Figures</h2>', rows(pairs, 'figures')].join('\n');
}

function notesSection(report: AsyncReport): string {
  const notes = [...report.notes, ...(report.benchmark?.notes ?? []), ...(report.generative?.notes ?? [])];
  if (notes.length === 0) return '';
  return ['<h2>Notes</h2>', `<ul>${notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`].join(
    '\n',
  );
}

function endpointSection(report: AsyncReport): string {
  const { endpoint } = report;
  const pairs: [string, string][] = [
    ['Endpoint', endpoint.name],
    ['Deployed by this run', endpoint.action === 'deploy' ? 'yes' : 'no (reused)'],
    ...(endpoint.instanceType === undefined
      ? []
      : [['Instance type', endpoint.instanceType] as [string, string]]),
    ...(endpoint.maxInstanceCount === undefined
      ? []
      : [['Autoscaling', `0–${endpoint.maxInstanceCount} instance(s)`] as [string, string]]),
    ...(endpoint.targetBacklogPerInstance === undefined
      ? []
      : [['Target backlog per instance', String(endpoint.targetBacklogPerInstance)] as [string, string]]),
    ['summary.json (one row per input)', report.files.summaryJson],
    ['summary.md', report.files.summaryMarkdown],
  ];
  return ['<h2>Endpoint and files</h2>', rows(pairs, 'endpoint')].join('\n');
}

/** report.html of an async run, from its report.json; async because Vega renders SVG asynchronously. */
export async function renderAsyncHtmlReport(report: AsyncReport): Promise<string> {
  const charts = await renderAsyncReportCharts(report);
  const title = report.name === undefined ? report.runId : `${report.name} (${report.runId})`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Async inference report: ${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>Async inference report: ${escapeHtml(title)}</h1>`,
    `<p class="meta">Run <code>${escapeHtml(report.runId)}</code>, generated ${escapeHtml(report.generatedAt)}</p>`,
    report.measuredLocally ? `<p class="banner">${escapeHtml(ASYNC_MEASURED_LOCALLY_NOTICE)}</p>` : '',
    outcomeSection(report),
    moneySection(report),
    chartsSection(charts),
    figuresSection(report),
    notesSection(report),
    endpointSection(report),
    '</body>',
    '</html>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n')
    .concat('\n');
}
