/**
 * "Validate and plan" reading the market over the REAL adapters (lambdas/adapters/
 * pricing-hosting-prices.ts, ec2-instance-facts.ts, s3-object-store.ts) and fakes of the Price
 * List API, EC2 and S3 that validate every request against the services' declarations
 * (aws-harness.ts); each call is recorded as validate-and-plan's, for the IAM evaluation in
 * iam/iam-conformance.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { ARTIFACTS_BUCKET } from './aws-harness.js';
import { REGION } from './fake-aws/sagemaker-service.js';
import { marketHarness, planWithMarket } from './support/market-plan.js';

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
});
