import {
  IllegalArgumentException,
  InvalidPaginationTokenException,
  NoSuchResourceException,
  type ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { endpointUsageQuotaName } from '../../../core/planning/instance-quotas.js';
import { knownInstanceTypes } from '../../../core/catalog/instances.js';
import { ACCOUNT_ID, REGION } from './sagemaker-service.js';
import { type AwsRecorder, installFake } from './recorder.js';

type Input = Record<string, unknown>;

/**
 * Service Quotas for one service's quotas, applied and default (Service Quotas API reference,
 * https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html,
 * API_ListAWSDefaultServiceQuotas.html, API_GetServiceQuota.html):
 *
 * - ListServiceQuotas answers the applied values; "if the applied quota value is not available for
 *   a quota, the quota is not retrieved" (`appliedOnly: false` leaves such a quota out);
 *   ListAWSDefaultServiceQuotas answers AWS's defaults, "not reflect[ing] any quota increases";
 * - both page by `MaxResults` (1–100; the validator checks the range) and an opaque `NextToken`,
 *   whose absence ends the listing; a token they did not hand out is
 *   `InvalidPaginationTokenException`;
 * - a service code Service Quotas does not know is `NoSuchResourceException`, and so is a quota code
 *   GetServiceQuota does not know for the service.
 */

export interface FakeQuota {
  readonly name: string;
  readonly code: string;
  /** AWS's default. */
  readonly defaultValue: number;
  /** The applied value, after increases; absent when Service Quotas has none for the account. */
  readonly appliedValue?: number;
}

/** Without `MaxResults`, a page holds up to 100 (the largest the APIs take). */
const DEFAULT_PAGE_SIZE = 100;

export class FakeServiceQuotas {
  private readonly services = new Map<string, FakeQuota[]>();
  private readonly tokens = new Map<string, { readonly listing: string; readonly offset: number }>();

  /** The quotas of one service code. */
  setQuotas(serviceCode: string, quotas: readonly FakeQuota[]): void {
    this.services.set(serviceCode, [...quotas]);
  }

  install(client: ServiceQuotasClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'ServiceQuotasClient',
      recorder,
      validationError: (message) =>
        new IllegalArgumentException({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private handle(command: string, input: Input): unknown {
    const serviceCode = String(input.ServiceCode);
    const quotas = this.services.get(serviceCode);
    if (quotas === undefined) {
      throw new NoSuchResourceException({
        message: `The request failed because the specified service does not exist: ${serviceCode}`,
        $metadata: { httpStatusCode: 400 },
      });
    }
    switch (command) {
      case 'ListServiceQuotasCommand':
        return this.page(
          `applied|${serviceCode}`,
          quotas.filter((quota) => quota.appliedValue !== undefined),
          input,
          (quota) => quota.appliedValue ?? quota.defaultValue,
          serviceCode,
        );
      case 'ListAWSDefaultServiceQuotasCommand':
        return this.page(`default|${serviceCode}`, quotas, input, (quota) => quota.defaultValue, serviceCode);
      case 'GetServiceQuotaCommand': {
        const quota = quotas.find((candidate) => candidate.code === input.QuotaCode);
        if (quota?.appliedValue === undefined) {
          throw new NoSuchResourceException({
            message: `The request failed because the specified quota does not exist: ${String(input.QuotaCode)}`,
            $metadata: { httpStatusCode: 400 },
          });
        }
        return { Quota: quotaOf(serviceCode, quota, quota.appliedValue) };
      }
      default:
        throw new Error(`FakeServiceQuotas: ${command} is not faked; add it to the fake`);
    }
  }

  private page(
    listing: string,
    quotas: readonly FakeQuota[],
    input: Input,
    valueOf: (quota: FakeQuota) => number,
    serviceCode: string,
  ): unknown {
    let offset = 0;
    if (typeof input.NextToken === 'string') {
      const token = this.tokens.get(input.NextToken);
      if (token?.listing !== listing) {
        throw new InvalidPaginationTokenException({
          message: 'Invalid pagination token',
          $metadata: { httpStatusCode: 400 },
        });
      }
      offset = token.offset;
    }
    const size = typeof input.MaxResults === 'number' ? input.MaxResults : DEFAULT_PAGE_SIZE;
    const page = quotas.slice(offset, offset + size);
    const more = offset + size < quotas.length;
    const nextToken = more ? `page-${this.tokens.size + 1}` : undefined;
    if (nextToken !== undefined) this.tokens.set(nextToken, { listing, offset: offset + size });
    return {
      Quotas: page.map((quota) => quotaOf(serviceCode, quota, valueOf(quota))),
      ...(nextToken === undefined ? {} : { NextToken: nextToken }),
    };
  }
}

function quotaOf(serviceCode: string, quota: FakeQuota, value: number): Record<string, unknown> {
  return {
    ServiceCode: serviceCode,
    QuotaName: quota.name,
    QuotaCode: quota.code,
    QuotaArn: `arn:aws:servicequotas:${REGION}:${ACCOUNT_ID}:${serviceCode}/${quota.code}`,
    Value: value,
    Unit: 'None',
    Adjustable: true,
    GlobalQuota: false,
  };
}

/**
 * SageMaker's quotas as an account holds them: per instance type one for endpoint usage and one for
 * training job usage (so the listing spans several pages, as SageMaker's hundreds of quotas do),
 * an applied value for every other type and AWS's default for all. The values are above what any
 * example asks for: the runs under test are not refused by a quota.
 */
export function sageMakerEndpointQuotas(): FakeQuota[] {
  return knownInstanceTypes()
    .sort()
    .flatMap((type, index) => [
      {
        name: endpointUsageQuotaName(type),
        code: quotaCode(`endpoint|${type}`),
        defaultValue: 20,
        ...(index % 2 === 0 ? { appliedValue: 40 } : {}),
      },
      { name: `${type} for training job usage`, code: quotaCode(`training|${type}`), defaultValue: 20 },
    ]);
}

/** A stable `L-` code per quota, in Service Quotas' form (`L-` and eight hexadecimal digits). */
function quotaCode(key: string): string {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `L-${hash.toString(16).toUpperCase().padStart(8, '0')}`;
}
