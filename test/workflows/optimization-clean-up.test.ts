import { beforeAll, describe, expect, it } from '@jest/globals';
import { CleanUpStatuses, cleanUpInCause } from '../../core/contracts/clean-up-account.js';
import { resourceName, runTags } from '../../core/contracts/names.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { optimizationInput, runOptimization, succeeded } from './run-optimization.js';

/**
 * Clean-up on the paths the happy tests do not take, on the synthesized definition: a delete that
 * AWS refuses, an endpoint still Creating, a clean-up step that times out.
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const DENIED =
  'User: arn:aws:sts::123456789012:assumed-role/mso-clean-up/fn is not authorized to perform this action';

function names(runId: string, candidateId: string) {
  return {
    endpoint: resourceName(runId, 'endpoint', candidateId),
    config: resourceName(runId, 'endpoint-config', candidateId),
    model: resourceName(runId, 'model', candidateId),
  };
}

/** What "Recommend" failing after every candidate was measured looks like (report store down). */
const recommendFails = () =>
  Promise.reject(Object.assign(new Error('S3 is unreachable'), { name: 'NetworkingError' }));

describe('optimization workflow clean-up (synthesized definition, run locally)', () => {
  it('deletes the two other endpoints with their configs and models when one endpoint cannot be deleted, and the failed run tells what is left and how to delete it', async () => {
    // Prepare: keep-recommended keeps all three endpoints until the ranking, which fails.
    const sagemaker = new FakeSageMaker({ deleteDenied: { '-ep-gpu': DENIED } });
    const gpu = names('one-denied', 'gpu');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ cleanup: { policy: 'keep-recommended' } }),
      runId: 'one-denied',
      override: { recommend: recommendFails },
    });

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [gpu.endpoint],
      endpointConfigs: [gpu.config],
      models: [gpu.model],
    });
    if (run.result.status !== 'FAILED') throw new Error(`Run ${run.result.status}`);
    expect(run.result.error).toBe('NetworkingError');
    expect(JSON.parse(run.result.cause)).toMatchObject({ errorMessage: 'S3 is unreachable' });
    expect(cleanUpInCause(run.result.cause)).toBe(
      'Clean-up deleted 2 endpoints, 2 endpoint configs, 2 models; LEFT 3 resources, finish by hand: ' +
        `endpoint ${gpu.endpoint} (AccessDeniedException: ${DENIED} (sagemaker:DeleteEndpoint on ${gpu.endpoint})): ` +
        `aws sagemaker delete-endpoint --endpoint-name ${gpu.endpoint}; ` +
        `endpoint-config ${gpu.config} (kept for endpoint ${gpu.endpoint}, which is still there: delete it first): ` +
        `aws sagemaker delete-endpoint-config --endpoint-config-name ${gpu.config}; ` +
        `model ${gpu.model} (kept for endpoint ${gpu.endpoint}, which is still there: delete it first): ` +
        `aws sagemaker delete-model --model-name ${gpu.model}.`,
    );
    expect(run.statesEntered.slice(-4)).toEqual([
      'Clean up after failure',
      'Cleaned up after failure?',
      'Add clean-up account to the error',
      'Run failed',
    ]);
  });

  it('ends a measured run SUCCEEDED with an endpoint that could not be deleted in its account', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker({ deleteDenied: { '-ep-gpu': DENIED } });
    const gpu = names('denied-on-success', 'gpu');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'denied-on-success',
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.recommendation).not.toBeNull();
    expect(output.cleanUp.status).toBe(CleanUpStatuses.incomplete);
    expect(output.cleanUp.left).toEqual([
      {
        kind: 'endpoint',
        name: gpu.endpoint,
        reason: `AccessDeniedException: ${DENIED} (sagemaker:DeleteEndpoint on ${gpu.endpoint})`,
        command: `aws sagemaker delete-endpoint --endpoint-name ${gpu.endpoint}`,
      },
      {
        kind: 'endpoint-config',
        name: gpu.config,
        reason: `kept for endpoint ${gpu.endpoint}, which is still there: delete it first`,
        command: `aws sagemaker delete-endpoint-config --endpoint-config-name ${gpu.config}`,
      },
      {
        kind: 'model',
        name: gpu.model,
        reason: `kept for endpoint ${gpu.endpoint}, which is still there: delete it first`,
        command: `aws sagemaker delete-model --model-name ${gpu.model}`,
      },
    ]);
    expect(sagemaker.leftovers().endpoints).toEqual([gpu.endpoint]);
  });

  it('waits for an endpoint still Creating when a step fails, then deletes it with its config and model', async () => {
    // Prepare: a deploy that finished after the failure left an endpoint Creating for 3 describes.
    const sagemaker = new FakeSageMaker({ creatingFor: { '-ep-late': 3 } });
    const late = names('late-endpoint', 'late');
    const tags = runTags('late-endpoint');
    await sagemaker.createModel({
      modelName: late.model,
      image: 'img',
      modelDataUrl: 's3://b/m',
      environment: {},
      tags,
    });
    await sagemaker.createEndpointConfig({
      endpointConfigName: late.config,
      variant: { variantName: 'AllTraffic', modelName: late.model, instanceType: 'ml.c5.xlarge' },
      tags,
    });
    await sagemaker.createEndpoint({ endpointName: late.endpoint, endpointConfigName: late.config, tags });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'late-endpoint',
      override: { recommend: recommendFails },
    });

    // Assert
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(run.statesEntered.filter((state) => state === 'Wait to clean up after failure')).toHaveLength(3);
    // Deleted once it settled, and its config and model only after it.
    expect(sagemaker.calls.slice(-3)).toEqual([
      `DeleteEndpoint ${late.endpoint}`,
      `DeleteEndpointConfig ${late.config}`,
      `DeleteModel ${late.model}`,
    ]);
    if (run.result.status !== 'FAILED') throw new Error(`Run ${run.result.status}`);
    expect(run.result.error).toBe('NetworkingError');
    expect(cleanUpInCause(run.result.cause)).toBe(
      'Clean-up deleted 1 endpoint, 1 endpoint config, 1 model; nothing left.',
    );
  });

  it('keeps a measured run SUCCEEDED with its recommendation and its kept endpoint when its clean-up times out', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    const timeout = Object.assign(new Error('Task timed out after 600.00 seconds'), {
      name: 'States.Timeout',
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ cleanup: { policy: 'keep-recommended' } }),
      runId: 'clean-up-times-out',
      endpoints: (name) => ({ latencyMs: name.includes('cpu-neo') ? 2 : 6 }),
      override: { 'clean-up': () => Promise.reject(timeout) },
    });

    // Assert
    const output = succeeded(run.result);
    const kept = names('clean-up-times-out', 'cpu-neo');
    expect(output.recommendation?.candidateId).toBe('cpu-neo');
    expect(output.keep).toEqual({
      endpointName: kept.endpoint,
      endpointConfigName: kept.config,
      modelName: kept.model,
    });
    expect(output.cleanUp).toEqual({
      status: CleanUpStatuses.failed,
      message:
        'Clean-up did not finish (States.Timeout, see the execution history). The run result stands. ' +
        'What the run created and clean-up had not deleted carries the tag mso:run-id=clean-up-times-out ' +
        '(aws resourcegroupstaggingapi get-resources --tag-filters Key=mso:run-id,Values=clean-up-times-out); ' +
        'delete it by hand, or the janitor sweeps it within an hour after the run ends.',
    });
    expect(run.statesEntered).not.toContain('Clean up after failure');
    expect(sagemaker.calls).not.toContain(`DeleteEndpoint ${kept.endpoint}`);
    expect(sagemaker.leftovers().endpoints).toContain(kept.endpoint);
  });
});
