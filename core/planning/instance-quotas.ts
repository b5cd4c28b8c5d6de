import {
  endpointUsageQuotaName,
  describeError,
  type InputIssue,
  InvalidRunInputError,
} from '../contracts/index.js';
import type { RunInput } from '../contracts/index.js';
import { interleavesRepeats } from '../load-test/index.js';
import type { InstanceQuota, InstanceQuotaReader, Logger } from '../ports/index.js';

export { endpointUsageQuotaName };

export interface InstanceQuotaDeps {
  /** Absent: quotas are not checked (e.g. a caller with nothing to read them from). */
  readonly instanceQuotas?: InstanceQuotaReader;
  /** The region the quotas apply to, for the messages. */
  readonly servingRegion?: string;
  readonly logger: Logger;
}

/**
 * At planning ("Validate and plan"): refuses a candidate that asks for more instances of a type
 * than the account's quota allows at all, since it could never be deployed. The candidates that
 * may run at once are capped to the quotas by `candidatesInFlightWithin`. The quota is shared with
 * every other endpoint of the account in the region, so a candidate that fits may still wait:
 * that is the Retry's job, not this check's.
 *
 * The quotas are advice: when they cannot be read (no `servicequotas:ListServiceQuotas`
 * permission, throttling), the run goes on with a warning and meets the quota, if at all, when it
 * deploys. Returns the quotas it read (none when it read none), which cap the counts sized for a
 * target TPS (core/serving/target-sizing.ts).
 */
export async function checkInstanceQuotas(
  input: RunInput,
  deps: InstanceQuotaDeps,
): Promise<readonly InstanceQuota[]> {
  if (deps.instanceQuotas === undefined) return [];
  const instanced = input.candidates.flatMap((candidate, index) =>
    'instanceType' in candidate
      ? [{ index, instanceType: candidate.instanceType, count: candidate.initialInstanceCount }]
      : [],
  );
  if (instanced.length === 0 || input.existingEndpoint !== undefined) return [];
  const types = [...new Set(instanced.map((c) => c.instanceType))].sort();
  let quotas: readonly InstanceQuota[];
  try {
    quotas = await deps.instanceQuotas.endpointInstanceQuotas(types);
  } catch (error) {
    deps.logger.warn(
      'Instance quotas could not be read: candidates beyond a quota will wait or fail when deployed',
      {
        instanceTypes: types,
        error: describeError(error),
      },
    );
    return [];
  }
  const copies = Object.values(input.environmentRanges).reduce(
    (product, values) => product * values.length,
    1,
  );
  const byType = new Map(quotas.map((quota) => [quota.instanceType, quota]));
  const issues: InputIssue[] = instanced.flatMap(({ index, instanceType, count }) => {
    const quota = byType.get(instanceType);
    if (quota === undefined || count <= quota.value) return [];
    return [
      {
        field: `candidates[${index}].initialInstanceCount`,
        given: `${count} × ${instanceType}`,
        expected: `at most ${quota.value}: ${describeQuota(quota, deps.servingRegion)}. ${raiseQuotaHint(quota, count)}, or ask for fewer instances or another instance type`,
      },
    ];
  });
  issues.push(...minInstancesIssues(input, types, byType, deps.servingRegion));
  if (issues.length > 0) throw new InvalidRunInputError(issues);

  const interleaved = interleavesRepeats(input.loadPlan);
  const interleaveIssues: InputIssue[] = [];
  for (const quota of quotas) {
    // Candidates of a type that may run at once (the Map runs maxConcurrentCandidates; with
    // interleaved repeats every endpoint is up at the end), largest first; environmentRanges makes
    // one candidate per combination of values.
    const counts = instanced
      .filter((c) => c.instanceType === quota.instanceType)
      .flatMap((c) => Array.from({ length: copies }, () => c.count))
      .sort((a, b) => b - a)
      .slice(0, interleaved ? undefined : input.maxConcurrentCandidates);
    const needed = counts.reduce((sum, count) => sum + count, 0);
    if (interleaved && needed > quota.value) {
      // A candidate waiting for capacity while the others keep theirs for the repeats would wait
      // until its quota Retry gave up: refused here instead.
      interleaveIssues.push({
        field: 'loadPlan.interleaveRepeats',
        given: `true: every candidate's endpoint is kept until the repeats, ${needed} × ${quota.instanceType} at once`,
        expected: `at most ${quota.value}: ${describeQuota(quota, deps.servingRegion)}. Set loadPlan.interleaveRepeats to false (repeats back to back), or ${raiseQuotaHint(quota, needed).replace(/^Raise/, 'raise')}`,
      });
    }
  }
  if (interleaveIssues.length > 0) throw new InvalidRunInputError(interleaveIssues);
  return quotas;
}

/**
 * `availability.minInstances` against the quotas: the recommendation keeps at least that many
 * instances of its type in one endpoint, which the type's quota must allow. Refused when no
 * candidate's type can (each type's quota read, all below the minimum): nothing could be
 * recommended. A type whose quota was not read may still fit, so it refuses nothing.
 */
function minInstancesIssues(
  input: RunInput,
  types: readonly string[],
  byType: ReadonlyMap<string, InstanceQuota>,
  region: string | undefined,
): InputIssue[] {
  const minimum = input.availability.minInstances;
  if (input.sla.targetTps === undefined) return [];
  const quotas = types.map((type) => byType.get(type));
  if (quotas.some((quota) => quota === undefined || quota.value >= minimum)) return [];
  const read = quotas.filter((quota): quota is InstanceQuota => quota !== undefined);
  const largest = read.reduce((a, b) => (b.value > a.value ? b : a));
  return [
    {
      field: 'availability.minInstances',
      given: String(minimum),
      expected:
        `at most ${largest.value}: the recommendation keeps at least this many instances of its type in one ` +
        `endpoint, and ${read.map((quota) => describeQuota(quota, region)).join('; ')}. ` +
        `${raiseQuotaHint(largest, minimum)}, or ask for a lower minimum`,
    },
  ];
}

function describeQuota(quota: InstanceQuota, region: string | undefined): string {
  const code = quota.quotaCode === undefined ? '' : ` (${quota.quotaCode})`;
  const where = region === undefined ? '' : ` in ${region}`;
  const value = quota.source === 'default' ? "AWS's default" : "the account's quota";
  return `${value} "${quota.quotaName}"${code} is ${quota.value}${where}, shared by all the account's endpoints`;
}

/**
 * How to raise a quota: the Service Quotas console, or its CLI (AWS CLI reference,
 * "request-service-quota-increase": https://docs.aws.amazon.com/cli/latest/reference/service-quotas/request-service-quota-increase.html).
 */
export function raiseQuotaHint(quota: InstanceQuota, desired: number): string {
  const cli =
    quota.quotaCode === undefined
      ? ''
      : ` or \`aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code ${quota.quotaCode} --desired-value ${desired}\``;
  return `Raise it in the Service Quotas console (Amazon SageMaker, "${quota.quotaName}")${cli}`;
}

/** The run's candidates as the quotas see them: one entry per expanded candidate with an instance type. */
function instancedCandidates(input: RunInput): { readonly instanceType: string; readonly count: number }[] {
  const copies = Object.values(input.environmentRanges).reduce(
    (product, values) => product * values.length,
    1,
  );
  return input.candidates.flatMap((candidate) =>
    'instanceType' in candidate
      ? Array.from({ length: copies }, () => ({
          instanceType: candidate.instanceType,
          count: candidate.initialInstanceCount,
        }))
      : [],
  );
}

export interface CandidatesInFlight {
  /** The plan's `maxConcurrentCandidates`: the input's, or fewer so that every quota holds them. */
  readonly maxConcurrentCandidates: number;
  /** Why it is lower than asked, for the plan's warnings. */
  readonly warning?: string;
}

/**
 * How many candidates "Benchmark each candidate" may run at once so that the run's own candidates
 * never outgrow a quota it could read: the largest count, up to `maxConcurrentCandidates`, at which
 * the candidates of each type that may run together (its largest ones) fit its quota.
 *
 * Without it, the candidates of a type beyond its quota wait in "Deploy candidate" for the others
 * to be deleted, and that wait is the QuotaExceededError Retry's (QUOTA_RETRY: 12 attempts whose
 * waits, fully jittered, add up to about 67 minutes on average and may come to far less): ten
 * candidates of a type on a quota of two make five waves, which outlast it, and a candidate of the
 * last waves then fails with QuotaExceeded. The Map's concurrency is one number for every type,
 * so the tightest type sets it. With interleaved repeats every endpoint is up at once, which
 * `checkInstanceQuotas` refuses past a quota: nothing to cap. Quotas not read: the input's count.
 */
export function candidatesInFlightWithin(
  input: RunInput,
  quotas: readonly InstanceQuota[],
  region?: string,
): CandidatesInFlight {
  const asked = input.maxConcurrentCandidates;
  if (quotas.length === 0 || input.existingEndpoint !== undefined || interleavesRepeats(input.loadPlan)) {
    return { maxConcurrentCandidates: asked };
  }
  const instanced = instancedCandidates(input);
  let allowed = asked;
  let tightest: { quota: InstanceQuota; needed: number } | undefined;
  for (const quota of quotas) {
    const counts = instanced
      .filter((c) => c.instanceType === quota.instanceType)
      .map((c) => c.count)
      .sort((a, b) => b - a);
    let fits = 0;
    let used = 0;
    for (const count of counts) {
      if (used + count > quota.value) break;
      used += count;
      fits += 1;
    }
    // Fewer candidates of the type than the cap: they all fit, whatever the cap.
    if (fits >= counts.length) continue;
    if (Math.max(1, fits) < allowed) {
      allowed = Math.max(1, fits);
      tightest = { quota, needed: counts.slice(0, asked).reduce((sum, count) => sum + count, 0) };
    }
  }
  if (tightest === undefined) return { maxConcurrentCandidates: asked };
  const { quota, needed } = tightest;
  return {
    maxConcurrentCandidates: allowed,
    warning:
      `maxConcurrentCandidates: ${asked} asked, ${allowed} planned: ${describeQuota(quota, region)}, and ${asked} ` +
      `candidates at once could need ${needed} × ${quota.instanceType}; the others would wait for ` +
      `capacity longer than a deploy's quota retry lasts. ${raiseQuotaHint(quota, needed)} to run more at once`,
  };
}
