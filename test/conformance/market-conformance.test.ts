/**
 * "Validate and plan" reading the market over the REAL adapters (lambdas/adapters/
 * pricing-hosting-prices.ts, ec2-instance-facts.ts, s3-object-store.ts) and fakes of the Price
 * List API, EC2 and S3 that validate every request against the services' declarations
 * (aws-harness.ts); each call is recorded as validate-and-plan's, for the IAM evaluation in
 * iam/iam-conformance.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../core/contracts/errors.js';
import { SAGEMAKER_PRICE_LIST_SERVICE_CODE } from '../../lambdas/adapters/pricing-hosting-prices.js';
import { ARTIFACTS_BUCKET } from './aws-harness.js';
import { sageMakerInstanceProducts } from './fake-aws/pricing-service.js';
import { REGION } from './fake-aws/sagemaker-service.js';
import { MARKET_INPUT, marketHarness, PLANNED_AT, planWithMarket } from './support/market-plan.js';

describe('validate-and-plan reading the market over the real adapters', () => {
  it('prices from the Price List and describes from EC2, every request as the services declare', async () => {
    // Prepare
    const harness = marketHarness();

    // Act
    const plan = await planWithMarket(harness, 'market-live');

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(plan.estimate.prices).toEqual({
      source: 'price-list-api',
      region: REGION,
      runRegion: REGION,
      asOf: '2026-11-28',
      ageDays: 0,
    });
    expect(plan.candidates.map((c) => [c.id, c.priceSource, c.usdPerHour])).toEqual([
      ['cpu', 'price-list', 0.204],
      ['gpu', 'price-list', 1.408],
    ]);
    expect(plan.instanceFacts).toEqual({
      source: 'ec2-describe-instance-types',
      region: REGION,
      readTypes: ['ml.c5.xlarge', 'ml.g5.xlarge'],
    });
    expect(harness.recorder.inputsOf('GetProductsCommand')).toEqual([
      {
        ServiceCode: 'AmazonSageMaker',
        FormatVersion: 'aws_v1',
        Filters: [
          { Type: 'TERM_MATCH', Field: 'regionCode', Value: REGION },
          { Type: 'TERM_MATCH', Field: 'platoinstancetype', Value: 'Hosting' },
        ],
        MaxResults: 100,
      },
    ]);
    expect(harness.recorder.inputsOf('DescribeInstanceTypesCommand')).toEqual([
      { Filters: [{ Name: 'instance-type', Values: ['c5.xlarge', 'g5.xlarge'] }], MaxResults: 100 },
    ]);
    expect(harness.s3.text(`s3://${ARTIFACTS_BUCKET}/catalog/prices/${REGION}/2026-11-28.json`)).toContain(
      '"ml.c5.xlarge":0.204',
    );
  });

  it('reads the day’s copy on the second plan of the day, and the Price List again the next day', async () => {
    // Prepare
    const harness = marketHarness();
    await planWithMarket(harness, 'market-first');
    const reads = harness.recorder.inputsOf('GetProductsCommand').length;

    // Act
    const second = await planWithMarket(harness, 'market-second', new Date('2026-11-28T22:00:00Z'));
    const readsAfterSecond = harness.recorder.inputsOf('GetProductsCommand').length;
    await planWithMarket(harness, 'market-next-day', new Date('2026-11-29T01:00:00Z'));

    // Assert
    expect(second.estimate.prices?.source).toBe('price-list-cache');
    expect(readsAfterSecond).toBe(reads);
    expect(harness.recorder.inputsOf('GetProductsCommand')).toHaveLength(2 * reads);
  });

  it('fails when the Price List stays throttled: retries, then prices from the table with a warning', async () => {
    // Prepare
    const harness = marketHarness();
    harness.priceList.throttleNext(3);

    // Act
    const plan = await planWithMarket(harness, 'market-throttled');

    // Assert
    expect(harness.recorder.inputsOf('GetProductsCommand')).toHaveLength(3);
    expect(plan.estimate.prices?.source).toBe('price-table');
    expect(plan.candidates.map((c) => c.priceSource)).toEqual(['price-table', 'price-table']);
    expect(plan.warnings).toContain(
      'prices: the Price List API read failed: TransientServiceError: Price List GetProducts for us-east-1: ThrottlingException: Rate exceeded; the plan uses the recorded table (us-east-1, recorded 2025-10-01)',
    );
  });

  it('reads live after a throttled attempt', async () => {
    // Prepare
    const harness = marketHarness();
    harness.priceList.throttleNext(1);
    harness.ec2.throttleNext(1);

    // Act
    const plan = await planWithMarket(harness, 'market-retried');

    // Assert
    expect(plan.estimate.prices?.source).toBe('price-list-api');
    expect(plan.instanceFacts?.source).toBe('ec2-describe-instance-types');
    expect(plan.warnings ?? []).not.toContainEqual(expect.stringContaining('failed'));
  });

  it('prices live a type the recorded table has no row for (ml.g6e.2xlarge), which the schema lets through', async () => {
    // Prepare: SageMaker's hosting product of the type as the Price List holds one: the ml. type in
    // instanceName, the region's usage type prefix with Host: (USE1-Host:ml.<type>, as Cost
    // Explorer and the bill name endpoint instance-hours), operation RunInstance. The price is the
    // fake's, not a recorded figure.
    const harness = marketHarness();
    const g6e = {
      attributes: {
        servicecode: 'AmazonSageMaker',
        regionCode: REGION,
        location: 'US East (N. Virginia)',
        locationType: 'AWS Region',
        productFamily: 'ML Instance',
        instanceName: 'ml.g6e.2xlarge',
        usagetype: 'USE1-Host:ml.g6e.2xlarge',
        operation: 'RunInstance',
        component: 'Hosting',
        platoinstancetype: 'Hosting',
      },
      usdPerHour: 3.1,
    };
    harness.priceList.setProducts(SAGEMAKER_PRICE_LIST_SERVICE_CODE, [
      ...sageMakerInstanceProducts(REGION),
      g6e,
    ]);
    const input = { ...MARKET_INPUT, candidates: [{ id: 'g6e', instanceType: 'ml.g6e.2xlarge' }] };

    // Act
    const plan = await planWithMarket(harness, 'market-g6e', PLANNED_AT, input);

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(
      plan.candidates.map((c) => [c.instanceType, c.usdPerHour, c.priceSource, c.priceRegion, c.priceAsOf]),
    ).toEqual([['ml.g6e.2xlarge', 3.1, 'price-list', REGION, '2026-11-28']]);
  });

  it('fails when neither the live read nor the table prices a candidate, naming field, type, region and the fix', async () => {
    // Prepare: the Price List holds no ml.g6e product (the recorded table has no row for it either).
    const harness = marketHarness();
    const input = { ...MARKET_INPUT, candidates: [{ id: 'g6e', instanceType: 'ml.g6e.2xlarge' }] };

    // Act
    const error = await planWithMarket(harness, 'market-unpriced', PLANNED_AT, input).catch(
      (e: unknown) => e,
    );

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.g6e.2xlarge"',
        expected:
          `a price for ml.g6e.2xlarge in ${REGION}: the AWS Price List API prices no SageMaker hosting of it there (read 2026-11-28), ` +
          'and the recorded price table has no row for it (no public source read gives one; its rows are of us-east-1); ' +
          'give its on-demand USD per instance-hour in pricing.usdPerHour["ml.g6e.2xlarge"]',
      },
    ]);
  });
});
