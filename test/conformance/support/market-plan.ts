import { gzipSync } from 'node:zlib';
import type { RunPlan } from '../../../core/contracts/optimization-state.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { Ec2InstanceFactsReader } from '../../../lambdas/adapters/ec2-instance-facts.js';
import { PricingHostingPrices } from '../../../lambdas/adapters/pricing-hosting-prices.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { ARTIFACTS_BUCKET, AwsHarness } from '../aws-harness.js';
import { REGION } from '../fake-aws/sagemaker-service.js';

/** "Validate and plan" reading the market over the real adapters and the harness's fakes. */

const MODEL_URI = `s3://${ARTIFACTS_BUCKET}/models/cnn/model.tar.gz`;
const PAYLOAD_URI = `s3://${ARTIFACTS_BUCKET}/models/cnn/payload.json`;
export const PLANNED_AT = new Date('2026-11-28T10:00:00Z');

export const MARKET_INPUT = {
  model: { artifactUri: MODEL_URI, framework: 'onnx', inputShape: { input: [1, 3, 32, 32] } },
  payload: { uri: PAYLOAD_URI, contentType: 'application/json' },
  candidates: [
    { id: 'cpu', instanceType: 'ml.c5.xlarge' },
    { id: 'gpu', instanceType: 'ml.g5.xlarge' },
  ],
  loadPlan: { model: 'closed', steps: [1], warmupSeconds: 0, stepDurationSeconds: 0.1, stopAtPlateau: false },
  sla: { p95LatencyMs: 30_000 },
};

/** A harness with the run's objects seeded. */
export function marketHarness(): AwsHarness {
  const harness = new AwsHarness();
  harness.s3.seed(MODEL_URI, gzipSync('model'));
  harness.s3.seed(PAYLOAD_URI, '{"inputs":[[0]]}');
  return harness;
}

/** validateAndPlan as validate-and-plan's Lambda runs it (lambdas/wiring.ts), its calls recorded as its own. */
export function planWithMarket(
  harness: AwsHarness,
  runId: string,
  now: Date = PLANNED_AT,
  input: unknown = MARKET_INPUT,
): Promise<RunPlan> {
  return harness.recorder.as('validate-and-plan', () =>
    validateAndPlan(
      { runId, input },
      {
        store: harness.store,
        artifactsBucket: ARTIFACTS_BUCKET,
        allowFileUris: false,
        market: {
          region: REGION,
          prices: new PricingHostingPrices(harness.pricingClient),
          facts: new Ec2InstanceFactsReader(harness.ec2Client),
          retry: { attempts: 3, firstDelayMs: 1 },
        },
        now: () => now,
        logger: silentLogger,
      },
    ),
  );
}
