import { GetProductsCommand, type PricingClient } from '@aws-sdk/client-pricing';
import type { HostingPriceList } from '../../core/catalog/index.js';
import { TransientServiceError } from '../../core/contracts/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/** The Price List's service code of SageMaker (GetProducts `ServiceCode`). */
export const SAGEMAKER_PRICE_LIST_SERVICE_CODE = 'AmazonSageMaker';

/**
 * The product attribute that tells what a SageMaker ML instance is billed for, and its value for
 * real-time endpoint instances. SageMaker's products carry `regionCode`, `instanceName` (the `ml.`
 * type), `productFamily` "ML Instance" and `platoinstancetype` ("Hosting", "Training",
 * "Studio-JupyterLab", …); GetAttributeValues lists the values of an attribute (AWS Price List Query
 * API, https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-price-list-query-api.html).
 */
const USAGE_ATTRIBUTE = 'platoinstancetype';
const HOSTING = 'Hosting';

/** GetProducts' MaxResults is 1–100 (Smithy model of AWSPriceListService, GetProductsRequest). */
const PAGE_SIZE = 100;

/**
 * The Price List Query API answers from us-east-1 and ap-south-1 only ("the AWS Price List Query
 * API provides the following two endpoints", Billing user guide, Using the Price List Query API,
 * https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-price-list-query-api.html);
 * "the endpoints aren't related to product or service attributes": either answers for every region,
 * which a `regionCode` filter selects. The Asia Pacific regions use the nearer endpoint.
 */
export function priceListEndpointRegion(region: string): 'us-east-1' | 'ap-south-1' {
  return region.startsWith('ap-') || region.startsWith('me-') ? 'ap-south-1' : 'us-east-1';
}

/**
 * SageMaker real-time hosting prices of one region from the Price List API (GetProducts, every
 * page): each product is a JSON string (`PriceList` "is a list of JSON strings", GetProducts API
 * reference, https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html),
 * whose `terms.OnDemand` price dimensions give USD per `Hrs`. A type with several hourly on-demand
 * SKUs keeps the lowest. Throttling and server faults become TransientServiceError (the planner
 * retries them, then uses the recorded table); AccessDenied and the rest are thrown as they are.
 */
export class PricingHostingPrices implements HostingPriceList {
  constructor(private readonly client: PricingClient) {}

  async hostingPrices(region: string): Promise<Readonly<Record<string, number>>> {
    const prices: Record<string, number> = {};
    let nextToken: string | undefined;
    do {
      const page = await this.page(region, nextToken);
      for (const item of page.PriceList ?? []) {
        const priced = hourlyHostingPrice(item, region);
        if (priced === undefined) continue;
        const known = prices[priced.instanceType];
        if (known === undefined || priced.usdPerHour < known) prices[priced.instanceType] = priced.usdPerHour;
      }
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    return prices;
  }

  private async page(region: string, nextToken: string | undefined) {
    try {
      return await this.client.send(
        new GetProductsCommand({
          ServiceCode: SAGEMAKER_PRICE_LIST_SERVICE_CODE,
          FormatVersion: 'aws_v1',
          Filters: [
            { Type: 'TERM_MATCH', Field: 'regionCode', Value: region },
            { Type: 'TERM_MATCH', Field: USAGE_ATTRIBUTE, Value: HOSTING },
          ],
          MaxResults: PAGE_SIZE,
          ...(nextToken === undefined ? {} : { NextToken: nextToken }),
        }),
      );
    } catch (error) {
      if (isTransient(error)) {
        throw new TransientServiceError(
          `Price List GetProducts for ${region}: ${errorName(error) ?? 'error'}: ${errorMessage(error)}`,
        );
      }
      throw error;
    }
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** One product of the price list: its `ml.` type and on-demand USD per hour, if it is one. */
export function hourlyHostingPrice(
  item: unknown,
  region: string,
): { readonly instanceType: string; readonly usdPerHour: number } | undefined {
  let parsed: unknown;
  try {
    parsed = typeof item === 'string' ? JSON.parse(item) : item;
  } catch {
    return undefined;
  }
  const attributes = record(record(record(parsed)?.product)?.attributes);
  const instanceType = attributes?.instanceName ?? attributes?.instanceType;
  if (typeof instanceType !== 'string' || !instanceType.startsWith('ml.')) return undefined;
  if (attributes?.regionCode !== region || attributes[USAGE_ATTRIBUTE] !== HOSTING) return undefined;
  const onDemand = record(record(record(parsed)?.terms)?.OnDemand) ?? {};
  const hourly = Object.values(onDemand).flatMap((term) =>
    Object.values(record(record(term)?.priceDimensions) ?? {}).flatMap((dimension) => {
      const unit = record(dimension)?.unit;
      const usd = Number(record(record(dimension)?.pricePerUnit)?.USD);
      return unit === 'Hrs' && Number.isFinite(usd) && usd > 0 ? [usd] : [];
    }),
  );
  return hourly.length === 0 ? undefined : { instanceType, usdPerHour: Math.min(...hourly) };
}
