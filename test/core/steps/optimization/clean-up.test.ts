import { describe, expect, it } from '@jest/globals';
import { cleanUpRun } from '../../../../core/steps/optimization/clean-up.js';
import { CleanUpStatuses } from '../../../../core/contracts/clean-up-account.js';
import { KEEP_TAG, resourceName } from '../../../../core/contracts/names.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { silentLogger } from '../../../support/memory-object-store.js';

const RUN_ID = 'nightly-2026-11-22';
const NOW_MS = Date.parse('2026-11-22T10:00:00Z');
const names = (id: string): { endpointName: string; endpointConfigName: string; modelName: string } => ({
  endpointName: resourceName(RUN_ID, 'endpoint', id),
  endpointConfigName: resourceName(RUN_ID, 'endpoint-config', id),
  modelName: resourceName(RUN_ID, 'model', id),
});

/** A candidate's three resources as "Deploy candidate" leaves them, in service at the first look. */
async function deployed(sagemaker: FakeSageMaker, id: string): Promise<void> {
  const { endpointName, endpointConfigName, modelName } = names(id);
  await sagemaker.createModel({
    modelName,
    image: 'img',
    modelDataUrl: 's3://b/m.tar.gz',
    environment: {},
    tags: {},
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName,
    variant: { variantName: 'AllTraffic', modelName, instanceType: 'ml.c5.xlarge', initialInstanceCount: 1 },
  });
  await sagemaker.createEndpoint({ endpointName, endpointConfigName });
  sagemaker.calls.length = 0;
}

describe('cleanUpRun (state "Clean up run resources")', () => {
  it('deletes what the run left, endpoint before config before model, and says nothing is left', async () => {
    // Arrange
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    await deployed(sagemaker, 'c1');
    const { endpointName, endpointConfigName, modelName } = names('c1');

    // Act
    const account = await cleanUpRun(
      { plan: { runId: RUN_ID } },
      { host: sagemaker, compiler: sagemaker, logger: silentLogger, nowEpochMs: () => NOW_MS },
    );

    // Assert
    expect(sagemaker.calls).toEqual([
      `DeleteEndpoint ${endpointName}`,
      `DeleteEndpointConfig ${endpointConfigName}`,
      `DeleteModel ${modelName}`,
    ]);
    expect(account).toMatchObject({
      status: CleanUpStatuses.complete,
      endpoints: [endpointName],
      endpointConfigs: [endpointConfigName],
      models: [modelName],
      left: [],
      message: 'Clean-up deleted 1 endpoint, 1 endpoint config, 1 model; nothing left.',
    });
  });

  it('keeps the recommended endpoint, tagged so the janitor leaves it, and deletes the others', async () => {
    // Arrange
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    await deployed(sagemaker, 'c1');
    await deployed(sagemaker, 'c2');
    const kept = names('c1');
    const deleted = names('c2');

    // Act
    const account = await cleanUpRun(
      { plan: { runId: RUN_ID }, summary: { keep: kept } },
      { host: sagemaker, compiler: sagemaker, logger: silentLogger, nowEpochMs: () => NOW_MS },
    );

    // Assert
    expect(sagemaker.calls).toEqual([
      `AddTags ${kept.endpointName}`,
      `DeleteEndpoint ${deleted.endpointName}`,
      `DeleteEndpointConfig ${deleted.endpointConfigName}`,
      `DeleteModel ${deleted.modelName}`,
    ]);
    expect(sagemaker.tagsOf('endpoint', kept.endpointName)).toEqual({ [KEEP_TAG.key]: KEEP_TAG.value });
    expect(account.kept).toEqual([kept.endpointName, kept.endpointConfigName, kept.modelName]);
  });

  it('adds its account to the error that sent the run to "Clean up after failure"', async () => {
    // Arrange
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    await deployed(sagemaker, 'c1');

    // Act
    const account = await cleanUpRun(
      { plan: { runId: RUN_ID }, error: { Error: 'EndpointFailedError', Cause: 'capacity' } },
      { host: sagemaker, compiler: sagemaker, logger: silentLogger, nowEpochMs: () => NOW_MS },
    );

    // Assert
    expect(account.runError).toEqual({
      Error: 'EndpointFailedError',
      Cause: JSON.stringify({
        errorMessage: 'capacity',
        cleanUp: 'Clean-up deleted 1 endpoint, 1 endpoint config, 1 model; nothing left.',
      }),
    });
  });
});
