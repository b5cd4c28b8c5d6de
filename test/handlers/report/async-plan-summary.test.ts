import { describe, expect, it } from '@jest/globals';
import type { AsyncDeploySpec } from '../../../handlers/contracts/async-state.js';
import { formatAsyncPlan } from '../../../handlers/report/async-plan-summary.js';
import { deployPlan } from '../async/support/endpoint-loop.js';

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
});
