import type { AsyncEndpointState, AsyncRunPlan, AsyncRunSummary, ItemResult } from '../contracts/index.js';
import type { AsyncEndpointObserver, BacklogSample, ObjectStore, ScalingActivity } from '../ports/index.js';
import { type AsyncReport, buildAsyncReport, renderAsyncHtmlReport } from '../report/index.js';

/**
 * The async run's report files, written by "Summarize async run" beside summary.json: report.json
 * (the document) and report.html (its page with charts). What happened over time comes from the
 * run's own results and, through the observer, from the endpoint: its scaling activities since the
 * run was planned (Application Auto Scaling DescribeScalingActivities) and its backlog over the
 * invocations (CloudWatch `ApproximateBacklogSize`, "Monitor Asynchronous Endpoint":
 * https://docs.aws.amazon.com/sagemaker/latest/dg/async-inference-monitor.html). Without an
 * observer the report draws what the results alone say and names what is missing.
 */

export interface AsyncReportFiles {
  readonly reportUri: string;
  readonly reportHtmlUri: string;
}

export function asyncReportUris(runPrefixUri: string): AsyncReportFiles {
  return {
    reportUri: `${runPrefixUri}async/report.json`,
    reportHtmlUri: `${runPrefixUri}async/report.html`,
  };
}

export interface WriteAsyncReportInput {
  readonly plan: AsyncRunPlan;
  readonly endpointState: AsyncEndpointState;
  readonly summary: AsyncRunSummary;
  readonly items: readonly ItemResult[];
}

export interface WriteAsyncReportDeps {
  readonly store: ObjectStore;
  readonly observer?: AsyncEndpointObserver;
  readonly nowEpochMs: () => number;
  /** A local run: the page says its figures come from this machine. */
  readonly measuredLocally: boolean;
}

export async function writeAsyncReport(
  input: WriteAsyncReportInput,
  deps: WriteAsyncReportDeps,
): Promise<{ readonly files: AsyncReportFiles; readonly report: AsyncReport }> {
  const { plan, items } = input;
  const nowEpochMs = deps.nowEpochMs();
  const invoked = items
    .map((item) => item.invokedAtEpochMs)
    .filter((value): value is number => value !== undefined && Number.isFinite(value));
  const firstInvokedMs = invoked.length === 0 ? undefined : Math.min(...invoked);
  const { endpointName, variantName } = plan.endpoint;
  let activities: readonly ScalingActivity[] = [];
  let backlog: readonly BacklogSample[] = [];
  if (deps.observer !== undefined && firstInvokedMs !== undefined) {
    [activities, backlog] = await Promise.all([
      deps.observer.scalingActivities(endpointName, variantName, plan.plannedAtEpochMs),
      deps.observer.backlogSeries(endpointName, firstInvokedMs, Math.max(nowEpochMs, firstInvokedMs)),
    ]);
  }
  const report = buildAsyncReport({
    plan,
    summary: input.summary,
    items,
    activities,
    instancesAtStart: input.endpointState.instancesAtStart ?? null,
    backlog,
    nowEpochMs,
    measuredLocally: deps.measuredLocally,
  });
  const withObserverNote: AsyncReport =
    deps.observer === undefined
      ? {
          ...report,
          notes: [
            'no endpoint observer here: the scaling activities and the backlog were not read',
            ...report.notes,
          ],
        }
      : report;
  const files = asyncReportUris(plan.runPrefixUri);
  const encoder = new TextEncoder();
  await deps.store.putBytes(
    files.reportUri,
    encoder.encode(`${JSON.stringify(withObserverNote, null, 2)}\n`),
    'application/json',
  );
  await deps.store.putBytes(
    files.reportHtmlUri,
    encoder.encode(await renderAsyncHtmlReport(withObserverNote)),
    'text/html',
  );
  return { files, report: withObserverNote };
}
