import type {
  QualityExample,
  QualityVerdict,
  EndpointInstanceLimit,
  RecommendEvent,
  RunSummary,
} from '../../contracts/index.js';
import {
  plannedQualityText,
  buildReport,
  compareWithBaseline,
  recordLastApproved,
  type RegistryRun,
  summaryComparisonOf,
  withLocalFiles,
  renderHtmlReport,
  renderMarkdownReport,
  readInstanceSpread,
} from '../../report/index.js';
import type { LoadTestResult } from '../../load-test/index.js';
import { describeError, VARIANT_NAME } from '../../contracts/index.js';
import type {
  EndpointMetrics,
  EndpointMetricsReader,
  InvocationsPerInstanceReader,
  Logger,
  ObjectStore,
} from '../../ports/index.js';
import type { Report } from '../../report/index.js';
import type { InstanceSpread } from '../../serving/index.js';
import { proofDecision, rampDecision } from '../../serving/index.js';

export interface RecommendDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
  readonly measuredLocally: boolean;
  /**
   * The most instances one endpoint can have where the run measures, beyond the account's quotas
   * (locally: the local host's model-server budget). @default none: the API's bound alone
   */
  readonly endpointLimit?: EndpointInstanceLimit;
  readonly now: () => Date;
  /** Reads each endpoint's own metrics over its test window; none when absent. */
  readonly metrics?: EndpointMetricsReader;
  /** Reads how a multi-instance candidate's requests spread over its instances; none when absent. */
  readonly invocations?: InvocationsPerInstanceReader;
  /** The Region "Deploy candidate" deployed in: the report's deploy requests resolve images there. */
  readonly region?: string;
  /**
   * Local runs: the file an object of the run is, seen from the folder of the report at
   * `reportUri`; report.md and report.html show it (report/local-files.ts).
   */
  readonly localFileOf?: (uri: string, reportUri: string) => string | undefined;
}

/**
 * Endpoint metrics are context, not the measurement: a reader that fails or finds nothing leaves a
 * note in the report instead of failing the run. CloudWatch publishes with a delay of a minute or
 * so, so the last candidate's window may be partly missing; the note says so when it is empty.
 */
async function readEndpointMetrics(
  event: RecommendEvent,
  results: ReadonlyMap<string, LoadTestResult>,
  deps: RecommendDeps,
): Promise<Map<string, EndpointMetrics | string>> {
  const found = new Map<string, EndpointMetrics | string>();
  for (const [candidateId, result] of results) {
    const candidate = event.plan.candidates.find((c) => c.id === candidateId);
    if (candidate === undefined || deps.metrics === undefined) continue;
    // The variant "Check endpoint" found: an existing endpoint's need not be the project's AllTraffic.
    const variantName =
      event.candidates.find((o) => o.candidateId === candidateId)?.variantName ?? VARIANT_NAME;
    try {
      const metrics = await deps.metrics.read({
        endpointName: candidate.endpointName,
        variantName,
        startEpochMs: result.startEpochMs,
        endEpochMs: result.finishedEpochMs,
      });
      found.set(
        candidateId,
        metrics ?? 'none recorded for the test window yet (they can lag a minute or two)',
      );
    } catch (error) {
      deps.logger.warn('Endpoint metrics unavailable', { candidateId, error: describeError(error) });
      found.set(candidateId, `unavailable (${describeError(error)})`);
    }
  }
  return found;
}

/**
 * Each measured candidate of several instances: how its test's requests spread over them, read as
 * the proof reads its own (one code path, report/read-instance-spread.ts). One instance has no spread.
 */
async function readInstanceSpreads(
  event: RecommendEvent,
  results: ReadonlyMap<string, LoadTestResult>,
  deps: RecommendDeps,
): Promise<Map<string, InstanceSpread>> {
  const found = new Map<string, InstanceSpread>();
  for (const [candidateId, result] of results) {
    const candidate = event.plan.candidates.find((c) => c.id === candidateId);
    const outcome = event.candidates.find((o) => o.candidateId === candidateId);
    // The count the endpoint ran with ("Check endpoint"), else the planned one.
    const instances = outcome?.instanceCount ?? candidate?.initialInstanceCount ?? 0;
    if (candidate === undefined || candidate.kind === 'serverless' || instances < 2) continue;
    const spread = await readInstanceSpread(
      deps.invocations,
      {
        endpointName: candidate.endpointName,
        variantName: outcome?.variantName ?? VARIANT_NAME,
        startEpochMs: result.startEpochMs,
        endEpochMs: result.finishedEpochMs,
      },
      deps.logger,
      'the test window',
    );
    found.set(candidateId, spread);
  }
  return found;
}

/**
 * Each guarded candidate's worst answers, from its whole verdict ("Judge output quality" keeps only
 * a summary in the state). A verdict that cannot be read leaves the report without its examples:
 * the summary's figures still say how far the answers were.
 */
async function readQualityExamples(
  event: RecommendEvent,
  deps: RecommendDeps,
): Promise<Map<string, readonly QualityExample[]>> {
  const examples = new Map<string, readonly QualityExample[]>();
  for (const outcome of event.candidates) {
    const uri = outcome.quality?.verdictUri;
    if (uri === undefined || outcome.quality?.worstExampleCount === 0) continue;
    try {
      const verdict = JSON.parse(new TextDecoder().decode(await deps.store.getBytes(uri))) as QualityVerdict;
      examples.set(outcome.candidateId, verdict.worstExamples);
    } catch (error) {
      deps.logger.warn('quality verdict not read: the report shows no worst answers for the candidate', {
        candidateId: outcome.candidateId,
        uri,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return examples;
}

/**
 * State "Recommend": reads every measured candidate's load-test result, ranks the candidates that
 * met the SLA under the objective, and writes report.json, report.md and report.html under the
 * run's prefix. The state output is a short summary with pointers and the run's outcome, which
 * "Recommendation made?" reads after clean-up: a run without a recommendation still returns here
 * (its report is written), and the workflow ends it FAILED with `NoRecommendationError`.
 */
export async function recommend(event: RecommendEvent, deps: RecommendDeps): Promise<RunSummary> {
  const { plan } = event;
  const results = new Map<string, LoadTestResult>();
  for (const outcome of event.candidates) {
    if (outcome.resultUri === undefined) continue;
    const text = new TextDecoder().decode(await deps.store.getBytes(outcome.resultUri));
    results.set(outcome.candidateId, JSON.parse(text) as LoadTestResult);
  }
  const qualityExamples = await readQualityExamples(event, deps);
  const built = buildReport({
    plan,
    outcomes: event.candidates,
    results,
    ...(qualityExamples.size === 0 ? {} : { qualityExamples }),
    measuredLocally: deps.measuredLocally,
    ...(deps.endpointLimit === undefined ? {} : { endpointLimit: deps.endpointLimit }),
    generatedAt: deps.now().toISOString(),
    ...(deps.metrics === undefined
      ? {}
      : { endpointMetrics: await readEndpointMetrics(event, results, deps) }),
    ...(deps.invocations === undefined
      ? {}
      : { instanceSpreads: await readInstanceSpreads(event, results, deps) }),
    ...(event.packagedModel === undefined || event.compilations === undefined || deps.region === undefined
      ? {}
      : {
          deployment: {
            packagedModel: event.packagedModel,
            compilations: event.compilations,
            region: deps.region,
          },
        }),
  });
  const uri = (file: string): string => `${plan.runPrefixUri}${file}`;
  const encoder = new TextEncoder();
  const locations = { json: uri('report.json'), markdown: uri('report.md'), html: uri('report.html') };
  const { localFileOf } = deps;
  const measured =
    localFileOf === undefined ? built : withLocalFiles(built, (file) => localFileOf(file, locations.json));
  const registryRun: RegistryRun | undefined =
    plan.modelPackage === undefined
      ? undefined
      : {
          artifactsBucket: plan.artifactsBucket,
          modelPackage: plan.modelPackage,
          report: measured,
          reportUri: locations.json,
        };
  const report = registryRun === undefined ? measured : await withBaselineComparison(registryRun, deps);
  await deps.store.putBytes(
    locations.json,
    encoder.encode(JSON.stringify(report, null, 2)),
    'application/json',
  );
  await deps.store.putBytes(
    locations.markdown,
    encoder.encode(renderMarkdownReport(report)),
    'text/markdown',
  );
  await deps.store.putBytes(locations.html, encoder.encode(await renderHtmlReport(report)), 'text/html');
  // After the reports: the index never names a report that is not written yet.
  if (registryRun !== undefined) await recordBaseline(registryRun, deps);

  const recommended = plan.candidates.find((c) => c.id === report.recommendation?.candidateId);
  const keep =
    plan.cleanupPolicy === 'keep-recommended' && recommended !== undefined && recommended.kind !== 'existing'
      ? {
          endpointName: recommended.endpointName,
          endpointConfigName: recommended.endpointConfigName,
          modelName: recommended.modelName,
        }
      : undefined;
  const proof = proofOf(report, plan);
  deps.logger.info('Recommendation made', {
    runId: plan.runId,
    outcome: report.outcome,
    recommended: report.recommendation?.candidateId ?? null,
    report: locations.html,
  });
  return {
    runId: plan.runId,
    outcome: report.outcome,
    counts: report.counts,
    outcomeText: report.outcomeText,
    recommendation: report.recommendation,
    ...(report.noRecommendationReason === undefined
      ? {}
      : { noRecommendationReason: report.noRecommendationReason }),
    candidates: report.candidates.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })),
    ...(report.quality === undefined ? {} : { quality: plannedQualityText(report.quality) }),
    report: locations,
    ...(keep === undefined ? {} : { keep }),
    comparison:
      report.baselineComparison === undefined ? null : summaryComparisonOf(report.baselineComparison),
    ...proof,
  };
}

/**
 * A Model Registry run's report with its package and its verdict against the group's last
 * approved run; locally, the baseline's report as a file.
 */
async function withBaselineComparison(run: RegistryRun, deps: RecommendDeps): Promise<Report> {
  const comparison = await compareWithBaseline(run, deps);
  const baselineReportFile =
    comparison.baseline === undefined
      ? undefined
      : deps.localFileOf?.(comparison.baseline.reportUri, run.reportUri);
  return {
    ...run.report,
    modelPackage: run.modelPackage,
    baselineComparison: {
      ...comparison,
      ...(baselineReportFile === undefined ? {} : { baselineReportFile }),
    },
  };
}

/**
 * Makes the run its group's baseline. A store that refuses is logged, not thrown: the run's
 * result stands, and the next version is compared with the one before (or has no baseline).
 */
async function recordBaseline(run: RegistryRun, deps: RecommendDeps): Promise<void> {
  try {
    const recorded = await recordLastApproved(run, deps);
    deps.logger.info(
      recorded ? 'Recorded as the group’s last approved run' : 'Baseline index left as it is',
      {
        group: run.modelPackage.groupName,
        version: run.modelPackage.version,
      },
    );
  } catch (error) {
    deps.logger.error('Could not record the group’s last approved run', {
      group: run.modelPackage.groupName,
      version: run.modelPackage.version,
      error: describeError(error),
    });
  }
}

/**
 * With a target: what "Prove the target" deploys (`proofRequest`), or the skipped proof the report
 * already says (`proof`). Without a target, or with no candidate to size, neither.
 */
function proofOf(
  report: Awaited<ReturnType<typeof buildReport>>,
  plan: RecommendEvent['plan'],
): Pick<RunSummary, 'proofRequest' | 'proof' | 'rampRequest' | 'ramp'> {
  const st = report.serveTarget;
  if (st === undefined) return {};
  const candidate = plan.candidates.find((c) => c.id === st.candidateId);
  const decision = proofDecision(
    plan,
    candidate === undefined ? undefined : { candidate, instances: st.atTarget?.instances },
  );
  const proof: Pick<RunSummary, 'proofRequest' | 'proof'> =
    'request' in decision
      ? { proofRequest: decision.request }
      : {
          proof: {
            status: 'skipped',
            note: st.proof?.note ?? decision.skipped,
            ...(st.candidateId === undefined ? { targetNotCarried: true as const } : {}),
          },
        };
  const ramp = rampDecision(
    plan,
    candidate === undefined
      ? undefined
      : { candidate, policy: st.policy, perInstanceTps: st.atTarget?.perInstanceTps, headroom: st.headroom },
  );
  return {
    ...proof,
    ...('request' in ramp ? { rampRequest: ramp.request } : {}),
    ...('skipped' in ramp
      ? { ramp: { status: 'skipped' as const, note: st.ramp?.note ?? ramp.skipped } }
      : {}),
  };
}
