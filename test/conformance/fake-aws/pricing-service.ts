import {
  InvalidNextTokenException,
  InvalidParameterException,
  NotFoundException,
  type PricingClient,
  ThrottlingException,
} from '@aws-sdk/client-pricing';
import { findInstance, knownInstanceTypes } from '../../../core/catalog/instances.js';
import { REGION } from './sagemaker-service.js';
import { type AwsRecorder, installFake } from './recorder.js';

type Input = Record<string, unknown>;

/** One SageMaker product of the price list: its attributes and its on-demand USD per hour. */
export interface FakeProduct {
  readonly attributes: Readonly<Record<string, string>>;
  readonly usdPerHour: number;
}

/**
 * The AWS Price List Query API's GetProducts for the services it is given (AWS Price List API
 * reference, GetProducts,
 * https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html):
 *
 * - `Filters` of type TERM_MATCH keep the products whose attribute (or `ServiceCode`) equals the
 *   value; every filter must match;
 * - `PriceList` is a list of JSON strings, one product each, with its `terms.OnDemand` price
 *   dimensions (`unit`, `pricePerUnit.USD` as a decimal string);
 * - pages of `MaxResults` (1–100; the validator checks the range, 100 when absent) and an opaque
 *   `NextToken`; a token it did not hand out is InvalidNextTokenException;
 * - an unknown service code is NotFoundException; a throttled call is ThrottlingException
 *   (`throttleNext`).
 */
export class FakePriceList {
  private readonly services = new Map<string, FakeProduct[]>();
  private readonly tokens = new Map<string, { readonly query: string; readonly offset: number }>();
  private throttled = 0;

  setProducts(serviceCode: string, products: readonly FakeProduct[]): void {
    this.services.set(serviceCode, [...products]);
  }

  /** The next `count` calls are throttled. */
  throttleNext(count: number): void {
    this.throttled = count;
  }

  install(client: PricingClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'PricingClient',
      recorder,
      validationError: (message) =>
        new InvalidParameterException({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private handle(command: string, input: Input): unknown {
    if (command !== 'GetProductsCommand') throw new Error(`FakePriceList: ${command} is not faked; add it`);
    if (this.throttled > 0) {
      this.throttled -= 1;
      throw new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } });
    }
    const serviceCode = String(input.ServiceCode);
    const products = this.services.get(serviceCode);
    if (products === undefined) {
      throw new NotFoundException({
        message: `Service code ${serviceCode} not found`,
        $metadata: { httpStatusCode: 400 },
      });
    }
    const filters = (input.Filters ?? []) as { Type: string; Field: string; Value: string }[];
    const matching = products.filter((product) =>
      filters.every((filter) =>
        filter.Field === 'ServiceCode'
          ? filter.Value === serviceCode
          : product.attributes[filter.Field] === filter.Value,
      ),
    );
    const query = JSON.stringify([serviceCode, filters]);
    let offset = 0;
    if (typeof input.NextToken === 'string') {
      const token = this.tokens.get(input.NextToken);
      if (token?.query !== query) {
        throw new InvalidNextTokenException({
          message: 'The pagination token is invalid',
          $metadata: { httpStatusCode: 400 },
        });
      }
      offset = token.offset;
    }
    const size = typeof input.MaxResults === 'number' ? input.MaxResults : 100;
    const page = matching.slice(offset, offset + size);
    const nextToken = offset + size < matching.length ? `token-${this.tokens.size + 1}` : undefined;
    if (nextToken !== undefined) this.tokens.set(nextToken, { query, offset: offset + size });
    return {
      FormatVersion: 'aws_v1',
      PriceList: page.map((product, index) => priceListItem(serviceCode, product, offset + index)),
      ...(nextToken === undefined ? {} : { NextToken: nextToken }),
    };
  }
}

function priceListItem(serviceCode: string, product: FakeProduct, index: number): string {
  const sku = `SKU${String(index).padStart(6, '0')}`;
  const term = `${sku}.JRTCKXETXF`;
  return JSON.stringify({
    product: { productFamily: 'ML Instance', attributes: product.attributes, sku },
    serviceCode,
    terms: {
      OnDemand: {
        [term]: {
          offerTermCode: 'JRTCKXETXF',
          sku,
          priceDimensions: {
            [`${term}.6YS6EN2CT7`]: {
              unit: 'Hrs',
              pricePerUnit: { USD: product.usdPerHour.toFixed(10) },
              description: `$${product.usdPerHour} per ${String(product.attributes.instanceName)} hour`,
            },
          },
        },
      },
    },
  });
}

/**
 * SageMaker's ML instance products of a region, as the price list holds them: for every type the
 * recorded table prices, a Hosting product at that price and a Training product beside it (so
 * that the hosting filter has something to leave out).
 */
export function sageMakerInstanceProducts(region: string = REGION): FakeProduct[] {
  return knownInstanceTypes().flatMap((instanceType) => {
    const usdPerHour = findInstance(instanceType)?.usdPerHour;
    if (usdPerHour === undefined) return [];
    const attributes = { regionCode: region, instanceName: instanceType, productFamily: 'ML Instance' };
    return [
      { attributes: { ...attributes, platoinstancetype: 'Hosting' }, usdPerHour },
      { attributes: { ...attributes, platoinstancetype: 'Training' }, usdPerHour: usdPerHour * 1.1 },
    ];
  });
}
