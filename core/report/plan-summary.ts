/**
 * What `--plan` (local) and `runs plan` (the run API) print for an optimization run: the plan
 * "Validate and plan" returned, read for a person before the run exists. The budgets' lines serve
 * the async plan too. Here, not under local/, so that the runs CLI prints the same text.
 */
import { plannedQualityText } from './quality-text.js';
import { PRICE_TABLE_SOURCES, recordedPriceOf } from '../catalog/index.js';
import { type PlannedPriceSource, PRICE_AGE_WARNING_DAYS, type PriceBookSource } from '../contracts/index.js';
import type { ExecutionBudgets, PlannedCandidate, RunPlan, LoadPlan } from '../contracts/index.js';
import {
  scheduledLoads,
  interleavesRepeats,
  kneeProbesOf,
  measuringSeconds,
  repeatsOf,
} from '../load-test/index.js';
import { slaBoundsText } from './sla-text.js';
import { textTable as table } from './text-table.js';

/** ` (then 4, 8, 16 while every step meets the SLA)`: the extension steps, counted in the time. */
function extensionNote(plan: LoadPlan): string {
  const extra = scheduledLoads(plan).slice(plan.steps.length);
  return extra.length === 0 ? '' : ` (then ${extra.join(', ')} while every step meets the SLA)`;
}

/** `up to 3 knee probes, sustainable load measured 3 times`: the rounds, counted in the time. */
function roundsNote(plan: LoadPlan): string {
  const repeats = repeatsOf(plan);
  const interleaved = interleavesRepeats(plan) ? ' (repeats interleaved across candidates)' : '';
  const probes = kneeProbesOf(plan);
  return `${probes === 0 ? 'no knee probes' : `up to ${probes} knee probe(s)`}, sustainable load measured ${repeats} time${repeats === 1 ? '' : 's'}${interleaved}`;
}

export interface PlanSummaryInput {
  readonly plan: RunPlan;
  /** The command that starts this run, e.g. "npm start -- --input examples/local.json". */
  readonly runCommand: string;
  /** The local CLI's plan: the cost line adds that a local run costs nothing. @default false */
  readonly local?: boolean;
}

export function formatPlan({ plan, runCommand, local = false }: PlanSummaryInput): string {
  const perCandidate = measuringSeconds(plan.loadPlan);
  const rounds = Math.ceil(plan.candidates.length / Math.max(1, plan.maxConcurrentCandidates));
  const lines = [
    `Plan of run ${plan.runId}${plan.name === undefined ? '' : ` (${plan.name})`}: accepted, nothing created.`,
    '',
    `Candidates (${plan.candidates.length}):`,
    ...table(
      ['candidate', 'runs on', 'compiled for', 'settings', 'est. USD', 'price'],
      plan.candidates.map((candidate) => candidateRow(candidate, plan)),
    ).map((line) => `  ${line}`),
    ...shortlistLines(plan),
    ...(plan.quality === undefined ? [] : [`  Quality guard: ${plannedQualityText(plan.quality)}.`]),
    '',
    plan.compilations.length === 0
      ? 'Compilations: none'
      : `Compilations (${plan.compilations.length}): ${plan.compilations.map((c) => `${c.target}${c.compilerOptions === undefined ? '' : ` with ${JSON.stringify(c.compilerOptions)}`}${c.quantization === undefined ? '' : ` quantized to ${c.quantization.type}, calibrated on ${c.quantization.calibrationSamples} input(s) in [${c.quantization.calibrationRange.join(', ')}]`} (job ${c.jobName})`).join(', ')}`,
    `Load plan: ${plan.loadPlan.model} model, steps ${plan.loadPlan.steps.join(', ')}${extensionNote(plan.loadPlan)}, ${plan.loadPlan.warmupSeconds} s warm-up + ${plan.loadPlan.stepDurationSeconds} s per step, ${plan.loadPlan.workers} worker(s), ${roundsNote(plan.loadPlan)}: at most ${perCandidate} s per candidate; ${candidatesAtATime(plan)}: about ${rounds * perCandidate} s of load tests`,
    ...(plan.warnings ?? []).map((warning) => `  warning: ${warning}`),
    `SLA: ${slaBoundsText(plan.sla)}; objective ${plan.objective}`,
    ...proofLine(plan),
    '',
    `Estimated cost on AWS: $${plan.estimate.totalUsd.toFixed(2)}${plan.estimate.maxCostUsd === undefined ? ' (no maxCostUsd set)' : ` of maxCostUsd $${plan.estimate.maxCostUsd.toFixed(2)}`}${local ? '; a local run costs nothing' : ''}`,
    ...pricesLines(plan),
    ...plan.estimate.assumptions.map((assumption) => `  assumes: ${assumption}`),
    ...durationLine(plan),
    '',
    ...formatBudgets(plan.budgets),
    '',
    `Start it: ${runCommand}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * A shortlist's types were the planner's choice: say so, by which rule, and why each other family
 * was left out, one line per reason.
 */
function shortlistLines(plan: RunPlan): string[] {
  const shortlist = plan.shortlist;
  if (shortlist === undefined) return [];
  const { kinds, max } = shortlist.request;
  return [
    `  Shortlisted by the planner (kinds ${kinds.join(', ')}, at most ${max}): ${shortlist.rule}.`,
    ...shortlist.leftOut.map(
      (exclusion) => `  left out ${exclusion.families.join(', ')}: ${exclusion.reason}`,
    ),
  ];
}

/** `3 candidate(s), 2 at a time`, or `1 candidate`. */
function candidatesAtATime(plan: RunPlan): string {
  const count = plan.candidates.length;
  if (count === 1) return '1 candidate';
  return `${count} candidate(s), ${Math.min(count, plan.maxConcurrentCandidates)} at a time`;
}

/** The run's wall-clock time on AWS, typical and worst (absent in plans made before it was recorded). */
function durationLine(plan: RunPlan): string[] {
  const duration = plan.estimate.durationSeconds;
  if (duration === undefined) return [];
  const waves = Math.ceil(plan.candidates.length / Math.max(1, plan.maxConcurrentCandidates));
  const parts = [
    plan.existingEndpoint !== undefined
      ? 'nothing deployed'
      : waves === 1
        ? 'one wave of endpoints'
        : `${waves} waves of endpoints`,
    ...(plan.compilations.length === 0 ? [] : ['compilation jobs to their maxRuntimeSeconds']),
  ];
  return [
    `Estimated duration on AWS: about ${formatDuration(duration.typical)} as assumed above (${parts.join(', ')}); at most ${formatDuration(duration.worst)} if every endpoint and job takes its whole deadline`,
  ];
}

/** `45 s`, `12 min`, `2.5 h`. */
export function formatDuration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round((seconds / 3600) * 10) / 10} h`;
}

/** With a target: whether "Prove the target" runs after "Recommend", with how many workers. */
function proofLine(plan: RunPlan): string[] {
  const { prove } = plan;
  const target = plan.sla.targetTps;
  if (prove === undefined || target === undefined) return [];
  if (!prove.enabled) return [`Proof at ${target} TPS: off (prove.enabled false)`];
  if (prove.skipReason !== undefined) return [`Proof at ${target} TPS: cannot run: ${prove.skipReason}`];
  return [
    `Proof at ${target} TPS: after "Recommend", the chosen candidate deployed with its computed count, one open-model step of ${plan.loadPlan.warmupSeconds} s warm-up + ${plan.loadPlan.stepDurationSeconds} s by ${prove.workers} worker(s), then deleted`,
  ];
}

const PRICE_BOOK_TEXT: Readonly<Record<PriceBookSource, string>> = {
  'price-list-api': 'read from the AWS Price List API',
  'price-list-cache': "the day's copy of the AWS Price List API read",
  'price-table': 'the recorded table',
};

const DAY_MS = 86_400_000;

/** The day the plan was made: its price book's day plus the book's age. */
function plannedOn(prices: PlannedPriceSource): number {
  return Date.parse(`${prices.asOf}T00:00:00Z`) + prices.ageDays * DAY_MS;
}

/** The recorded table's source of a candidate's price: its page or repository file. */
function tableSourceOf(candidate: PlannedCandidate): string | undefined {
  if (candidate.instanceType === undefined) return undefined;
  const row = recordedPriceOf(candidate.instanceType, candidate.priceRegion);
  return row === undefined ? undefined : PRICE_TABLE_SOURCES[row.source].url;
}

/**
 * Where the plan's instance prices came from: the live read (region, day, age), the recorded
 * table's sources of the candidates priced from it, or the run input alone; a warning for each
 * day of prices older than PRICE_AGE_WARNING_DAYS that a candidate is priced at.
 */
function pricesLines(plan: RunPlan): string[] {
  const table = plan.estimate.priceTable;
  const tableLine = `${table.kind}, ${table.region}, recorded ${table.recordedOn} (${table.url})`;
  const prices = plan.estimate.prices;
  if (prices === undefined) return [`  prices: ${tableLine}`];
  const live = plan.candidates.filter((candidate) => candidate.priceSource === 'price-list');
  const recorded = plan.candidates.filter((candidate) => candidate.priceSource === 'price-table');
  const byInput = plan.candidates.some((candidate) => candidate.priceSource === 'run-input');
  const lines: string[] = [];
  if (live.length > 0 || prices.source !== 'price-table') {
    lines.push(
      `  prices: ${PRICE_BOOK_TEXT[prices.source]}, ${prices.region}, as of ${prices.asOf} (${prices.ageDays} day(s) old)`,
    );
  }
  if (recorded.length > 0) {
    const sources = [...new Set(recorded.flatMap((candidate) => tableSourceOf(candidate) ?? []))];
    lines.push(
      `  prices: the recorded table (${table.kind}) for ${[...new Set(recorded.map((c) => c.instanceType ?? c.id))].join(', ')}; rows from ${sources.join(', ')}`,
    );
  }
  if (byInput) lines.push('  prices: the run input (pricing.usdPerHour) for the candidates it prices');
  if (lines.length === 0) lines.push(`  prices: no instance price used (${tableLine} not read)`);
  if (prices.fallbackReason !== undefined) {
    lines.push(`  prices fell back to the recorded table: ${prices.fallbackReason}`);
  }
  return [...lines, ...staleDays(plan, prices, [...live, ...recorded])];
}

/** `warning: prices of 2025-01-26 (ml.p5.48xlarge), 671 days old ...`, per day older than the limit. */
function staleDays(plan: RunPlan, prices: PlannedPriceSource, priced: readonly PlannedCandidate[]): string[] {
  const today = plannedOn(prices);
  const byDay = new Map<string, Set<string>>();
  for (const candidate of priced) {
    const fallbackDay =
      candidate.priceSource === 'price-table' ? plan.estimate.priceTable.recordedOn : prices.asOf;
    const day = candidate.priceAsOf ?? fallbackDay;
    byDay.set(day, (byDay.get(day) ?? new Set<string>()).add(candidate.instanceType ?? candidate.id));
  }
  return [...byDay].flatMap(([day, types]) => {
    const ageDays = Math.floor((today - Date.parse(`${day}T00:00:00Z`)) / DAY_MS);
    return ageDays > PRICE_AGE_WARNING_DAYS
      ? [
          `  warning: prices of ${day} (${[...types].join(', ')}), ${ageDays} days old (more than ${PRICE_AGE_WARNING_DAYS}): they may have changed; give current ones in pricing.usdPerHour`,
        ]
      : [];
  });
}

/** `$0.2040/h, price list, us-east-1, 2026-11-28`: a candidate's price with its source, region and day. */
function priceText(candidate: PlannedCandidate, plan: RunPlan): string {
  const rate = candidate.usdPerHour === undefined ? '' : `$${candidate.usdPerHour.toFixed(4)}/h, `;
  const table = plan.estimate.priceTable;
  const prices = plan.estimate.prices;
  if (candidate.priceSource === 'price-list') {
    return `${rate}price list, ${candidate.priceRegion ?? prices?.region ?? '?'}, ${candidate.priceAsOf ?? prices?.asOf ?? '?'}`;
  }
  if (candidate.priceSource === 'price-table') {
    const rowRegion = candidate.priceRegion ?? table.region;
    const runRegion = prices?.runRegion;
    // A row of another region stands in for the run's region: the cell says so, not only a warning.
    const region =
      runRegion === undefined || runRegion === rowRegion
        ? rowRegion
        : `${rowRegion} figure (no ${runRegion} row)`;
    return `${rate}price table, ${region}, ${candidate.priceAsOf ?? table.recordedOn}`;
  }
  if (candidate.priceSource === 'run-input') return `${rate}run input`;
  return `${rate}${candidate.priceSource}`;
}

function candidateRow(candidate: PlannedCandidate, plan: RunPlan): string[] {
  const runsOn =
    candidate.serverless !== undefined
      ? `serverless ${candidate.serverless.memorySizeMb} MB × ${candidate.serverless.maxConcurrency}`
      : `${candidate.instanceType ?? '?'} × ${candidate.initialInstanceCount}`;
  const settings = Object.entries(candidate.environment).map(([name, value]) => `${name}=${value}`);
  return [
    candidate.id,
    runsOn,
    candidate.compiledFor ?? '-',
    settings.length === 0 ? '-' : settings.join(' '),
    candidate.estimatedCostUsd.toFixed(2),
    priceText(candidate, plan),
  ];
}

/** The Step Functions limits a plan uses, as lines ("Step Functions budgets:" and one per limit). */
export function formatBudgets(budgets: ExecutionBudgets | undefined): string[] {
  if (budgets === undefined) return ['Step Functions budgets: not recorded by this planner'];
  const { historyEvents: history, largestState: state } = budgets;
  return [
    'Step Functions budgets (worst case, checked before anything is created):',
    `  history: up to ${history.worstCase} events of the ${history.budget} budget (${percent(history.worstCase, history.budget)}; the quota is ${history.quota} events per execution, the rest is kept for retries)`,
    ...(state === undefined
      ? []
      : [
          `  largest state: ${state.bytes} bytes of the ${state.quotaBytes}-byte quota (${percent(state.bytes, state.quotaBytes)}), ${state.state}`,
        ]),
  ];
}

function percent(used: number, of: number): string {
  return `${((used / of) * 100).toFixed(1)} %`;
}
