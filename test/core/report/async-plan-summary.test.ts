import { describe, expect, it } from '@jest/globals';
import type { AsyncDeploySpec } from '../../../core/contracts/async-state.js';
import { formatAsyncPlan } from '../../../core/report/async-plan-summary.js';
import { estimateAsyncRun } from '../../../core/async/async-estimate.js';
import { deployPlan, reusePlan } from '../async/support/endpoint-loop.js';

const IMAGE =
  '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-cpu-py312-ubuntu22.04';
const HUB_SPEC: AsyncDeploySpec = {
  image: IMAGE,
  environment: { HF_MODEL_ID: 'distilbert/distilbert-base-uncased' },
  instanceType: 'ml.m5.xlarge',
  maxInstanceCount: 1,
  targetBacklogPerInstance: 5,
};

/** The plan's text for an endpoint deployed from `deploy`, its model line picked out. */
function modelLine(deploy: AsyncDeploySpec): string | undefined {
  const plan = deployPlan({ endpoint: { ...deployPlan().endpoint, deploy } });
  const text = formatAsyncPlan({
    planned: { plan, items: [] },
    runCommand: 'npm run start:async',
    displayUri: (uri) => uri.replace('s3://mso-artifacts/', 'store/'),
  });
  return text.split('\n').find((line) => line.includes(`image ${IMAGE}`));
}

describe('formatAsyncPlan', () => {
  it('says a Hub model has no model data: its container downloads it', () => {
    // Act
    const line = modelLine(HUB_SPEC);

    // Assert
    expect(line).toBe(
      `  no model data (the container downloads the Hub model), image ${IMAGE}, environment HF_MODEL_ID=distilbert/distilbert-base-uncased`,
    );
  });

  it("shows a Hub model's packaged code as its model data, and where the code came from", () => {
    // Act
    const line = modelLine({
      ...HUB_SPEC,
      modelDataUrl: 's3://mso-artifacts/runs/r1/async/model/model.tar.gz',
      codeUri: 's3://mso-artifacts/models/sst2/code.tar.gz',
    });

    // Assert
    expect(line).toBe(
      `  model data store/runs/r1/async/model/model.tar.gz (store/models/sst2/code.tar.gz packaged under code/), image ${IMAGE}, environment HF_MODEL_ID=distilbert/distilbert-base-uncased`,
    );
  });

  it("says a generative run's results are read in their container's format for their tokens", () => {
    // Prepare
    const plan = { ...reusePlan(), generative: { format: 'lmi' as const } };

    // Act
    const text = formatAsyncPlan({
      planned: { plan, items: [] },
      runCommand: 'start',
      displayUri: (uri) => uri,
    });

    // Assert
    expect(text.split('\n').filter((line) => line.startsWith('Generative:'))).toEqual([
      "Generative: each result read in the lmi answer format, its tokens counted from the container's own figures",
    ]);
  });

  it('prints the estimated cost, its assumptions and the duration before the budgets', () => {
    // Prepare: the plan as "Validate async run" gives it, with its estimate: 600 + 3 × (900 + 120) s.
    const plan = deployPlan();
    const planned = { plan: { ...plan, estimate: estimateAsyncRun(plan) }, items: [] };

    // Act
    const text = formatAsyncPlan({ planned, runCommand: 'start', displayUri: (uri) => uri });

    // Assert
    const lines = text.split('\n');
    const first = lines.findIndex((line) => line.startsWith('Estimated cost on AWS'));
    expect(lines.slice(first, lines.indexOf('Step Functions budgets: not recorded by this planner'))).toEqual(
      [
        'Estimated cost on AWS: at most $0.21 (ml.c5.xlarge at $0.204/h)',
        '  prices: Real-Time Inference, on-demand, per instance-hour, us-east-1, recorded 2025-10-01 (https://aws.amazon.com/sagemaker/pricing/)',
        '  assumes: endpoint billed 10 min while creating, at 1 instance',
        '  assumes: 1 input(s), 1 at a time, each taking its whole invocationTimeoutSeconds (900 s): 900 s, billed at all 3 instance(s) (maxInstanceCount)',
        '  assumes: deleted after the run (2 min at 3 instance(s))',
        '  assumes: Step Functions, Lambda, S3 and SNS requests not counted (cents)',
        'Estimated duration on AWS: at most 27 min as assumed above; 8 h if every wait takes its whole deadline (each input 26100 s)',
        '',
      ],
    );
  });

  it('names the source and date of the recorded row the endpoint is priced from', () => {
    // Prepare: ml.g5.12xlarge's recorded price comes from FMBench's pricing file, not the pricing page.
    const base = deployPlan();
    const deploy = { ...base.endpoint.deploy, instanceType: 'ml.g5.12xlarge' } as AsyncDeploySpec;
    const plan = deployPlan({ endpoint: { ...base.endpoint, deploy } });
    const planned = { plan: { ...plan, estimate: estimateAsyncRun(plan) }, items: [] };

    // Act
    const text = formatAsyncPlan({ planned, runCommand: 'start', displayUri: (uri) => uri });

    // Assert
    expect(text.split('\n').filter((line) => line.startsWith('  prices:'))).toEqual([
      '  prices: Real-Time Inference, on-demand, per instance-hour, us-east-1, recorded 2025-01-26 ' +
        '(https://github.com/aws-samples/foundation-model-benchmarking-tool/blob/39ce6b9c3572bf620a60c288c5b473462c5bc2eb/fmbench/configs/pricing.yml)',
    ]);
  });

  it('says a reused endpoint adds no cost', () => {
    // Prepare
    const plan = reusePlan();
    const planned = { plan: { ...plan, estimate: estimateAsyncRun(plan) }, items: [] };

    // Act
    const text = formatAsyncPlan({ planned, runCommand: 'start', displayUri: (uri) => uri });

    // Assert
    expect(text.split('\n').filter((line) => line.startsWith('Estimated '))).toEqual([
      'Estimated cost on AWS: $0.00 added (a reused endpoint)',
      'Estimated duration on AWS: at most 15 min as assumed above; 7.3 h if every wait takes its whole deadline (each input 26100 s)',
    ]);
  });

  it("says a local run costs nothing in the local CLI's plan only", () => {
    // Prepare
    const plan = deployPlan();
    const planned = { plan: { ...plan, estimate: estimateAsyncRun(plan) }, items: [] };

    // Act
    const costLine = (local: boolean): string | undefined =>
      formatAsyncPlan({ planned, runCommand: 'start', displayUri: (uri) => uri, local })
        .split('\n')
        .find((line) => line.startsWith('Estimated cost on AWS'));

    // Assert
    expect([costLine(true), costLine(false)]).toEqual([
      'Estimated cost on AWS: at most $0.21 (ml.c5.xlarge at $0.204/h); a local run costs nothing',
      'Estimated cost on AWS: at most $0.21 (ml.c5.xlarge at $0.204/h)',
    ]);
  });

  it('says the cost is not estimated for an instance without a price', () => {
    // Prepare
    const base = deployPlan();
    const plan = deployPlan({
      endpoint: { ...base.endpoint, deploy: { ...HUB_SPEC, instanceType: 'ml.x9.large' } },
    });
    const planned = { plan: { ...plan, estimate: estimateAsyncRun(plan) }, items: [] };

    // Act
    const text = formatAsyncPlan({ planned, runCommand: 'start', displayUri: (uri) => uri });

    // Assert
    expect(text.split('\n').filter((line) => line.startsWith('Estimated cost'))).toEqual([
      'Estimated cost on AWS: not estimated (no price for ml.x9.large)',
    ]);
  });
});
