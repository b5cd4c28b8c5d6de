import {
  ListAWSDefaultServiceQuotasCommand,
  ListServiceQuotasCommand,
  type ServiceQuota,
  type ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { endpointUsageQuotaName } from '../../core/planning/index.js';
import type { InstanceQuota, InstanceQuotaReader } from '../../core/ports/index.js';

/** Service Quotas' code for SageMaker (`aws service-quotas list-services`: "sagemaker", Amazon SageMaker). */
export const SAGEMAKER_SERVICE_CODE = 'sagemaker';

/** The most a page may hold (ListServiceQuotas and ListAWSDefaultServiceQuotas: MaxResults 1–100). */
const PAGE_SIZE = 100;

/**
 * Reads SageMaker's instance quotas from Service Quotas, found by name: each instance type has its
 * own quota code. `ListServiceQuotas` gives the applied
 * values, but "if the applied quota value is not available for a quota, the quota is not
 * retrieved" (Service Quotas API reference, ListServiceQuotas:
 * https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html),
 * so a type it leaves out is looked up in `ListAWSDefaultServiceQuotas` (AWS's default, which "does
 * not reflect any quota increases"). Both need `servicequotas:List*` on `*`. Errors (AccessDenied,
 * throttling) are thrown as the SDK gives them: the caller treats the quotas as advice.
 */
export class ServiceQuotasInstanceReader implements InstanceQuotaReader {
  constructor(private readonly client: ServiceQuotasClient) {}

  async endpointInstanceQuotas(instanceTypes: readonly string[]): Promise<readonly InstanceQuota[]> {
    const wanted = new Map(instanceTypes.map((type) => [endpointUsageQuotaName(type), type]));
    const found = new Map<string, InstanceQuota>();
    await this.collect('applied', wanted, found);
    if (found.size < wanted.size) await this.collect('default', wanted, found);
    return instanceTypes.flatMap((type) => {
      const quota = found.get(type);
      return quota === undefined ? [] : [quota];
    });
  }

  /** Every page of one listing, keeping the wanted quotas not found yet. */
  private async collect(
    source: InstanceQuota['source'],
    wanted: ReadonlyMap<string, string>,
    found: Map<string, InstanceQuota>,
  ): Promise<void> {
    let nextToken: string | undefined;
    do {
      const request = {
        ServiceCode: SAGEMAKER_SERVICE_CODE,
        MaxResults: PAGE_SIZE,
        ...(nextToken === undefined ? {} : { NextToken: nextToken }),
      };
      const page =
        source === 'applied'
          ? await this.client.send(new ListServiceQuotasCommand(request))
          : await this.client.send(new ListAWSDefaultServiceQuotasCommand(request));
      for (const quota of page.Quotas ?? []) {
        const instanceQuota = toInstanceQuota(quota, wanted, source);
        if (instanceQuota !== undefined && !found.has(instanceQuota.instanceType)) {
          found.set(instanceQuota.instanceType, instanceQuota);
        }
      }
      nextToken = page.NextToken;
    } while (nextToken !== undefined && found.size < wanted.size);
  }
}

function toInstanceQuota(
  quota: ServiceQuota,
  wanted: ReadonlyMap<string, string>,
  source: InstanceQuota['source'],
): InstanceQuota | undefined {
  const instanceType = quota.QuotaName === undefined ? undefined : wanted.get(quota.QuotaName);
  if (instanceType === undefined || quota.QuotaName === undefined || quota.Value === undefined)
    return undefined;
  return {
    instanceType,
    quotaName: quota.QuotaName,
    ...(quota.QuotaCode === undefined ? {} : { quotaCode: quota.QuotaCode }),
    value: quota.Value,
    source,
  };
}
