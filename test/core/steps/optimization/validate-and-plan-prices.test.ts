import { describe, expect, it } from '@jest/globals';
import type { HostingPriceList } from '../../../../core/catalog/market.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { planRefusal } from './support/plan-refusal.js';

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
const PLANNED_AT = new Date('2026-11-28T09:30:00Z');

/**
 * A CPU model on a CPU type no public source prices (ml.m7i) beside one the table prices, served by
 * the user's image (an ONNX model has no first-party image to resolve on AWS).
 */
function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/mso-model-server:1',
      inputShape: { input: [1, 3, 224, 224] },
    },
    payload: { uri: PAYLOAD_URI },
    candidates: [{ instanceType: 'ml.c5.xlarge' }, { instanceType: 'ml.m7i.xlarge' }],
    loadPlan: { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
    ...overrides,
  };
}

function deps(extra: Partial<ValidateAndPlanDeps> = {}): ValidateAndPlanDeps {
  return {
    store: new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{"x":1}'),
    artifactsBucket: 'mso-artifacts',
    allowFileUris: false,
    now: () => PLANNED_AT,
    logger: silentLogger,
    ...extra,
  };
}

/** The Price List of one region, as the adapter hands it to the core. */
function priceList(prices: Readonly<Record<string, number>>): HostingPriceList {
  return { hostingPrices: () => Promise.resolve(prices) };
}

describe('validateAndPlan: candidate prices', () => {
  it('fails when a type has no price in the input, no live price and no recorded row, naming field, type and what to do', async () => {
    // Act
    const error = await planRefusal(input(), deps());

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'candidates[1].instanceType',
        given: '"ml.m7i.xlarge"',
        expected:
          'a price for ml.m7i.xlarge: a local run reads no live price, and the recorded price table has no row for it ' +
          '(no public source read gives one; its rows are of us-east-1); give its on-demand USD per instance-hour in ' +
          'pricing.usdPerHour["ml.m7i.xlarge"], or plan the run on AWS, where "Validate and plan" reads the region\'s ' +
          'prices from the AWS Price List API',
      },
    ]);
  });

  it('fails when a plan made offline for a region has no price for a type, naming the region', async () => {
    // Act
    const error = await planRefusal(input(), deps({ servingRegion: 'eu-west-1', readObjects: false }));

    // Assert
    expect(error.issues.map((issue) => issue.expected)).toEqual([
      expect.stringMatching(
        /^a price for ml\.m7i\.xlarge in eu-west-1: a plan made offline reads no live price, and the recorded price table has no row for it/,
      ),
    ]);
  });

  it('fails when the live read does not price a type either, without suggesting a live read', async () => {
    // Act
    const error = await planRefusal(
      input(),
      deps({ servingRegion: 'eu-west-1', market: { prices: priceList({ 'ml.c5.xlarge': 0.23 }) } }),
    );

    // Assert
    expect(error.issues.map((issue) => issue.expected)).toEqual([
      'a price for ml.m7i.xlarge in eu-west-1: the AWS Price List API prices no SageMaker hosting of it there (read 2026-11-28), ' +
        'and the recorded price table has no row for it (no public source read gives one; its rows are of us-east-1); ' +
        'give its on-demand USD per instance-hour in pricing.usdPerHour["ml.m7i.xlarge"]',
    ]);
  });

  it('prices on AWS a type the recorded table lacks from the live read, with its region and day', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: input() },
      deps({
        servingRegion: 'eu-west-1',
        market: { prices: priceList({ 'ml.c5.xlarge': 0.23, 'ml.m7i.xlarge': 0.2688 }) },
      }),
    );

    // Assert
    expect(
      plan.candidates.map((c) => [c.instanceType, c.usdPerHour, c.priceSource, c.priceRegion, c.priceAsOf]),
    ).toEqual([
      ['ml.c5.xlarge', 0.23, 'price-list', 'eu-west-1', '2026-11-28'],
      ['ml.m7i.xlarge', 0.2688, 'price-list', 'eu-west-1', '2026-11-28'],
    ]);
  });

  it('prices from the input, the table row (with its source date) and nothing else offline', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: input({
          candidates: [{ instanceType: 'ml.p5.48xlarge' }, { instanceType: 'ml.m7i.xlarge' }],
          pricing: { usdPerHour: { 'ml.m7i.xlarge': 0.27 } },
        }),
      },
      deps(),
    );

    // Assert
    expect(
      plan.candidates.map((c) => [c.instanceType, c.usdPerHour, c.priceSource, c.priceRegion, c.priceAsOf]),
    ).toEqual([
      ['ml.p5.48xlarge', 113.068, 'price-table', 'us-east-1', '2025-01-26'],
      ['ml.m7i.xlarge', 0.27, 'run-input', undefined, undefined],
    ]);
  });
});
