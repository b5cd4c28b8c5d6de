import { endpointUsageQuotaName } from '../../core/planning/index.js';
import type { InstanceQuota, InstanceQuotaReader } from '../../core/ports/index.js';

/**
 * Local mode's instance quotas: none by default. The local host's only limit is its CPU budget
 * (LocalModelHost's `maxCpuOvercommit`), which depends on the threads of the endpoints running at
 * the time, not on an instance count known at planning; it is met, like SageMaker's quota, as a
 * QuotaExceededError from CreateEndpoint, which "Deploy candidate" retries. Quotas given here act
 * as an account's would (for tests and to rehearse a refusal).
 */
export class LocalInstanceQuotas implements InstanceQuotaReader {
  constructor(private readonly quotas: Readonly<Record<string, number>> = {}) {}

  endpointInstanceQuotas(instanceTypes: readonly string[]): Promise<readonly InstanceQuota[]> {
    return Promise.resolve(
      instanceTypes.flatMap((instanceType) => {
        const value = this.quotas[instanceType];
        return value === undefined
          ? []
          : [
              {
                instanceType,
                quotaName: endpointUsageQuotaName(instanceType),
                value,
                source: 'applied' as const,
              },
            ];
      }),
    );
  }
}
