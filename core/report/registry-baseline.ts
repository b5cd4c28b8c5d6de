import { z } from 'zod';
import {
  describeError,
  describeIssues,
  toInputIssues,
  ArtifactPrefix,
  s3Uri,
  COMPARISON_ATTRIBUTES,
  type RunVerdict,
  type SummaryComparison,
  type BaselineRun,
  type BaselineComparison,
} from '../contracts/index.js';
import type { ModelPackageRef } from '../contracts/index.js';
import type { Logger, ObjectStore } from '../ports/index.js';
import { compareRuns, parseReportForComparison } from './compare-runs.js';
import type { Report } from './report.js';

/**
 * A Model Registry run against the group's last approved version. A run that names a `modelPackage` (the registry trigger sets it) is
 * compared, in "Recommend", with the run of the same group's last approved version that wrote a
 * report, by the same `compareRuns` the CLIs use; then it becomes that baseline for the next one.
 *
 * The baseline is found without listing anything: one small index object per package group,
 * `model-packages/<group>/last-approved.json` in the artifacts bucket, names the group's last run
 * and the one before it. Keeping the one before makes a retried "Recommend" (whose first attempt
 * may have written the index already) compare with the same baseline again, not with itself.
 */

export function summaryComparisonOf(comparison: BaselineComparison): SummaryComparison {
  return {
    verdict: COMPARISON_ATTRIBUTES[comparison.verdict],
    text: comparison.text,
    ...(comparison.baseline === undefined ? {} : { baselineRunId: comparison.baseline.runId }),
  };
}

const baselineRunSchema = z.object({
  runId: z.string().min(1),
  modelPackageVersion: z.int().min(1),
  modelPackageArn: z.string(),
  reportUri: z.string().min(1),
});

const indexSchema = z.object({
  schemaVersion: z.literal(1),
  groupName: z.string(),
  last: baselineRunSchema,
  previous: baselineRunSchema.optional(),
  updatedAt: z.string(),
});

type BaselineIndex = z.output<typeof indexSchema>;

/** The index of a package group. Group names are `[a-zA-Z0-9-]` only: safe in a key as they are. */
export function baselineIndexUri(artifactsBucket: string, groupName: string): string {
  return s3Uri(artifactsBucket, `${ArtifactPrefix.modelPackages}${groupName}/last-approved.json`);
}

export interface RegistryBaselineDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
  readonly now: () => Date;
}

export interface RegistryRun {
  readonly artifactsBucket: string;
  readonly modelPackage: ModelPackageRef;
  /** The report this run wrote (its runId is the run's). */
  readonly report: Report;
  readonly reportUri: string;
}

type IndexRead = { readonly index: BaselineIndex | undefined } | { readonly problem: string };

async function readIndex(uri: string, store: ObjectStore): Promise<IndexRead> {
  try {
    if ((await store.head(uri)) === undefined) return { index: undefined };
    const document: unknown = JSON.parse(new TextDecoder().decode(await store.getBytes(uri)));
    const parsed = indexSchema.safeParse(document, { reportInput: true });
    return parsed.success
      ? { index: parsed.data }
      : {
          problem: `the index ${uri} is not one this version reads (${describeIssues(toInputIssues(parsed.error))}); the run replaces it`,
        };
  } catch (error) {
    return { problem: `the index ${uri} could not be read (${describeError(error)})` };
  }
}

function versionText(run: BaselineRun): string {
  return `version ${run.modelPackageVersion} (run ${run.runId})`;
}

/** The group's run this one is compared with: the last one, or the one before when the last is this run. */
function baselineOf(index: BaselineIndex, runId: string): BaselineRun | undefined {
  return index.last.runId === runId ? index.previous : index.last;
}

const VERDICT_WORDS: Readonly<Record<RunVerdict, string>> = {
  regressed: 'Regressed',
  improved: 'Improved',
  unchanged: 'Unchanged within noise',
  'not comparable': 'Not comparable',
};

/**
 * Compares the run with its group's last approved version. Never throws: a baseline that cannot
 * be read makes the verdict `not comparable`, with the reason, so the run's own result stands.
 */
export async function compareWithBaseline(
  run: RegistryRun,
  deps: RegistryBaselineDeps,
): Promise<BaselineComparison> {
  const { modelPackage, report } = run;
  const group = modelPackage.groupName;
  const indexUri = baselineIndexUri(run.artifactsBucket, group);
  const read = await readIndex(indexUri, deps.store);
  if ('problem' in read) {
    deps.logger.warn('Model package baseline unreadable', { group, problem: read.problem });
    return { verdict: 'not comparable', text: `Not compared: ${read.problem}.` };
  }
  const baseline = read.index === undefined ? undefined : baselineOf(read.index, report.runId);
  if (baseline === undefined) {
    return {
      verdict: 'no baseline',
      text: `No baseline: no earlier approved version of model package group ${group} has a report, so version ${modelPackage.version} is the group's first baseline.`,
    };
  }
  if (baseline.modelPackageVersion > modelPackage.version) {
    return {
      verdict: 'no baseline',
      text:
        `No baseline: ${versionText(baseline)} is the group's last approved version, later than this version ` +
        `${modelPackage.version}, and an older version is not compared with a newer one.`,
    };
  }
  let base: Report;
  try {
    const document: unknown = JSON.parse(
      new TextDecoder().decode(await deps.store.getBytes(baseline.reportUri)),
    );
    base = parseReportForComparison(document, baseline.reportUri);
  } catch (error) {
    deps.logger.warn('Baseline report unreadable', {
      group,
      baseline: baseline.runId,
      error: describeError(error),
    });
    return {
      verdict: 'not comparable',
      baseline,
      text: `Not compared with ${versionText(baseline)}: its report could not be read (${describeError(error)}).`,
    };
  }
  const comparison = compareRuns(base, report);
  const words = VERDICT_WORDS[comparison.verdict];
  return {
    verdict: comparison.verdict,
    baseline,
    comparison,
    text: `${words} versus ${versionText(baseline)}: ${comparison.verdictReason}.`,
  };
}

/**
 * Makes this run the group's last approved one, keeping the one it replaces as `previous`. A
 * retried "Recommend" finds itself already recorded and writes nothing; an older version than the
 * one recorded is not recorded. Returns whether the index was written. Throws what the store
 * throws: the caller decides whether a missed update fails the step.
 */
export async function recordLastApproved(run: RegistryRun, deps: RegistryBaselineDeps): Promise<boolean> {
  const indexUri = baselineIndexUri(run.artifactsBucket, run.modelPackage.groupName);
  const read = await readIndex(indexUri, deps.store);
  const current = 'index' in read ? read.index : undefined;
  if (current !== undefined) {
    if (current.last.runId === run.report.runId) return false;
    if (current.last.modelPackageVersion > run.modelPackage.version) return false;
  }
  const index: BaselineIndex = {
    schemaVersion: 1,
    groupName: run.modelPackage.groupName,
    last: {
      runId: run.report.runId,
      modelPackageVersion: run.modelPackage.version,
      modelPackageArn: run.modelPackage.arn,
      reportUri: run.reportUri,
    },
    ...(current === undefined ? {} : { previous: current.last }),
    updatedAt: deps.now().toISOString(),
  };
  await deps.store.putBytes(
    indexUri,
    new TextEncoder().encode(JSON.stringify(index, null, 2)),
    'application/json',
  );
  return true;
}
