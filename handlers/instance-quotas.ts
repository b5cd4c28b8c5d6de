import { describeError, type InputIssue, InvalidRunInputError } from './contracts/errors.js';
import type { RunInput } from './contracts/run-input.js';
import { interleavesRepeats } from './load-test/rounds.js';
import type { InstanceQuota, InstanceQuotaReader, Logger } from './ports.js';

/**
 * The name of SageMaker's per-type quota of endpoint instances, as Service Quotas lists it and as
 * CreateEndpoint's ResourceLimitExceeded names it ("The account-level service limit 'ml.g4dn.xlarge
 * for endpoint usage' is 0 Instances, …"; SageMaker AI endpoints and quotas,
 * https://docs.aws.amazon.com/general/latest/gr/sagemaker.html).
 */
export function endpointUsageQuotaName(instanceType: string): string {
  return `${instanceType} for endpoint usage`;
}

export interface InstanceQuotaDeps {
  /** Absent: quotas are not checked (e.g. a caller with nothing to read them from). */
  readonly instanceQuotas?: InstanceQuotaReader;
  /** The region the quotas apply to, for the messages. */
  readonly servingRegion?: string;
  readonly logger: Logger;
}

/**
 * At planning ("Validate and plan"): refuses a candidate that asks for more instances of a type
 * than the account's quota allows at all, since it could never be deployed; warns when the
 * candidates that may run at once need more than the quota, since those of a type beyond it will
 * wait in "Deploy candidate" (its QuotaExceededError Retry) for the others' endpoints to be
 * deleted. The quota is shared with every other endpoint of the account in the region, so a
 * candidate that fits may still wait: that is the Retry's job, not this check's.
 *
 * The quotas are advice: when they cannot be read (no `servicequotas:ListServiceQuotas`
 * permission, throttling), the run goes on with a warning and meets the quota, if at all, when it
 * deploys. Returns the quotas it read (none when it read none), which cap the counts sized for a
 * target TPS (handlers/serving/target-sizing.ts).
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
    } else if (needed > quota.value) {
      deps.logger.warn('Candidates will queue for instance capacity', {
        instanceType: quota.instanceType,
        quotaName: quota.quotaName,
        quota: quota.value,
        instancesAtOnce: needed,
        hint: raiseQuotaHint(quota, needed),
      });
    }
  }
  if (interleaveIssues.length > 0) throw new InvalidRunInputError(interleaveIssues);
  return quotas;
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
