/**
 * What `--plan` (local) and `runs plan --async` (the run API) print for an async-inference run: the
 * plan "Validate async run" makes (its planning half, `planAsyncRun`), read for a person before the
 * run exists. Here, not under local/, so that the runs CLI prints the same text.
 */
import {
  type AsyncEndpointPlan,
  type AsyncRunEstimate,
  type AsyncRunPlan,
  BATCH_SIZE,
  type BatchItem,
} from '../contracts/index.js';
import { PRICE_TABLE_SOURCES, recordedPriceOf } from '../catalog/index.js';
import { formatBudgets, formatDuration } from './plan-summary.js';

/**
 * The planning's result (`PlannedAsyncRun` of core/steps/async/validate-async-run.ts, a step
 * module no other module of core/ imports): the plan and the manifest's items.
 */
export interface PlannedAsyncRunSummary {
  readonly plan: AsyncRunPlan;
  readonly items: readonly BatchItem[];
}

/** Inputs listed by name; the rest are counted. */
const LISTED_INPUTS = 3;

export interface AsyncPlanSummaryInput {
  readonly planned: PlannedAsyncRunSummary;
  /** The command that starts this run, e.g. "npm run start:async -- --input examples/local-async.json". */
  readonly runCommand: string;
  /** How a URI is shown (locally: the file the local store keeps it in). */
  readonly displayUri: (uri: string) => string;
  /** The local CLI's plan: the cost line adds that a local run costs nothing. @default false */
  readonly local?: boolean;
}

export function formatAsyncPlan({
  planned,
  runCommand,
  displayUri,
  local = false,
}: AsyncPlanSummaryInput): string {
  const { plan, items } = planned;
  const inFlight = Math.min(plan.itemCount, plan.batchConcurrency * plan.itemConcurrency);
  const listed = items.slice(0, LISTED_INPUTS).map((item) => `    ${displayUri(item.inputLocation)}`);
  const lines = [
    `Plan of async run ${plan.runId}${plan.name === undefined ? '' : ` (${plan.name})`}: accepted, nothing created.`,
    '',
    ...endpointLines(plan.endpoint, displayUri),
    `Inputs: ${plan.itemCount}${plan.benchmark === undefined ? '' : ` (a benchmark: a burst of ${plan.benchmark.burstSize} sent at once, once the endpoint has scaled in to zero instances)`}`,
    ...listed,
    ...(items.length > LISTED_INPUTS ? [`    … and ${items.length - LISTED_INPUTS} more`] : []),
    `Batches: ${plan.batches.length} of at most ${BATCH_SIZE} inputs; ${plan.batchConcurrency} batch(es) at a time × ${plan.itemConcurrency} inputs each: at most ${inFlight} requests in flight`,
    `Invocation: ${plan.invocation.contentType}, invocation timeout ${plan.invocation.invocationTimeoutSeconds} s, request TTL ${plan.invocation.requestTtlSeconds} s, each input waited for at most ${plan.invocation.waitTimeoutSeconds} s`,
    ...(plan.generative === undefined
      ? []
      : [
          `Generative: each result read in the ${plan.generative.format} answer format, its tokens counted from the container's own figures`,
        ]),
    ...(plan.warnings ?? []).map((warning) => `Warning: ${warning}`),
    '',
    ...estimateLines(plan, local),
    ...formatBudgets(plan.budgets),
    '',
    `Start it: ${runCommand}`,
  ];
  return `${lines.join('\n')}\n`;
}

function endpointLines(endpoint: AsyncEndpointPlan, displayUri: (uri: string) => string): string[] {
  const after = endpoint.keepAfterRun ? 'kept after the run' : 'deleted after the run';
  const { deploy } = endpoint;
  if (endpoint.action === 'reuse' || deploy === undefined) {
    return [`Endpoint: reuse ${endpoint.endpointName} (variant ${endpoint.variantName}), ${after}`];
  }
  const perInstance =
    deploy.maxConcurrentInvocationsPerInstance === undefined
      ? ''
      : `, ${deploy.maxConcurrentInvocationsPerInstance} invocation(s) at a time per instance`;
  const environment = Object.entries(deploy.environment).map(([name, value]) => `${name}=${value}`);
  const modelData =
    deploy.modelDataUrl === undefined
      ? 'no model data (the container downloads the Hub model)'
      : deploy.codeUri === undefined
        ? `model data ${displayUri(deploy.modelDataUrl)}`
        : `model data ${displayUri(deploy.modelDataUrl)} (${displayUri(deploy.codeUri)} packaged under code/)`;
  return [
    `Endpoint: deploy ${endpoint.endpointName}, ${after}`,
    `  ${deploy.instanceType}, from 0 to ${deploy.maxInstanceCount} instance(s), scaled out at a backlog of ${deploy.targetBacklogPerInstance} per instance${perInstance}`,
    `  ${modelData}, image ${deploy.image}${environment.length === 0 ? '' : `, environment ${environment.join(' ')}`}`,
  ];
}

/** The cost and duration "Validate async run" estimated (absent in plans made before it did). */
/**
 * The recorded table's row the estimate priced the endpoint's type from: its region, its source and
 * that source's date (rows differ in both); the table as a whole when the row is not found.
 */
function recordedPriceText(plan: AsyncRunPlan, table: NonNullable<AsyncRunEstimate['priceTable']>): string {
  const instanceType = plan.endpoint.deploy?.instanceType;
  const row = instanceType === undefined ? undefined : recordedPriceOf(instanceType);
  if (row === undefined) return `${table.kind}, ${table.region}, recorded ${table.recordedOn} (${table.url})`;
  const source = PRICE_TABLE_SOURCES[row.source];
  return `${table.kind}, ${row.region}, recorded ${source.asOf} (${source.url})`;
}

function estimateLines(plan: AsyncRunPlan, local: boolean): string[] {
  const { estimate } = plan;
  if (estimate === undefined) return [];
  const localNote = local ? '; a local run costs nothing' : '';
  return [
    `Estimated cost on AWS: ${costOf(plan, estimate)}${localNote}`,
    ...(estimate.priceTable === undefined
      ? []
      : [`  prices: ${recordedPriceText(plan, estimate.priceTable)}`]),
    ...estimate.assumptions.map((assumption) => `  assumes: ${assumption}`),
    `Estimated duration on AWS: at most ${formatDuration(estimate.durationSeconds)} as assumed above; ${formatDuration(estimate.worstDurationSeconds)} if every wait takes its whole deadline (each input ${plan.invocation.waitTimeoutSeconds} s)`,
    '',
  ];
}

function costOf(plan: AsyncRunPlan, estimate: AsyncRunEstimate): string {
  if (plan.endpoint.action === 'reuse') return '$0.00 added (a reused endpoint)';
  const instanceType = plan.endpoint.deploy?.instanceType ?? 'the instance';
  if (estimate.totalUsd === undefined) return `not estimated (no price for ${instanceType})`;
  const rate = estimate.usdPerHour === undefined ? '' : ` at $${estimate.usdPerHour}/h`;
  return `at most $${estimate.totalUsd.toFixed(2)} (${instanceType}${rate})`;
}
