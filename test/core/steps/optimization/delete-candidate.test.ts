import { describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../../../core/contracts/errors.js';
import type { PlannedCandidate } from '../../../../core/contracts/optimization-state.js';
import { deleteCandidate } from '../../../../core/steps/optimization/delete-candidate.js';
import { FakeSageMaker } from '../../../support/fake-sagemaker.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import { plannedCandidate } from '../../../../bench/fixtures/sample-report.js';

const CANDIDATE = plannedCandidate('c1-c5-xlarge', 'ml.c5.xlarge', 0.204);

/** The candidate's model, config and endpoint, as "Deploy candidate" leaves them. */
async function deployed(sagemaker: FakeSageMaker, candidate: PlannedCandidate): Promise<void> {
  await sagemaker.createModel({
    modelName: candidate.modelName,
    image: 'img',
    modelDataUrl: 's3://b/m.tar.gz',
    environment: {},
    tags: {},
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName: candidate.endpointConfigName,
    variant: {
      variantName: 'AllTraffic',
      modelName: candidate.modelName,
      instanceType: 'ml.c5.xlarge',
      initialInstanceCount: 1,
    },
  });
  await sagemaker.createEndpoint({
    endpointName: candidate.endpointName,
    endpointConfigName: candidate.endpointConfigName,
  });
  sagemaker.calls.length = 0;
}

describe('deleteCandidate', () => {
  it("deletes the candidate's endpoint, endpoint config and model once its test ended", async () => {
    // Arrange: in service at the first DescribeEndpoint.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    await deployed(sagemaker, CANDIDATE);

    // Act
    const deleted = await deleteCandidate(
      { plan: { cleanupPolicy: 'delete-all' }, candidate: CANDIDATE },
      { host: sagemaker, logger: silentLogger },
    );

    // Assert
    expect(sagemaker.calls).toEqual([
      'DeleteEndpoint mso-run-ab12cd34-ep-c1-c5-xlarge',
      'DeleteEndpointConfig mso-run-ab12cd34-ec-c1-c5-xlarge',
      'DeleteModel mso-run-ab12cd34-m-c1-c5-xlarge',
    ]);
    expect(deleted).toEqual({
      endpoints: ['mso-run-ab12cd34-ep-c1-c5-xlarge'],
      endpointConfigs: ['mso-run-ab12cd34-ec-c1-c5-xlarge'],
      models: ['mso-run-ab12cd34-m-c1-c5-xlarge'],
      stoppedCompilationJobs: [],
    });
  });

  it('leaves every endpoint to the run clean-up when the policy keeps the recommended one', async () => {
    // Arrange
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    await deployed(sagemaker, CANDIDATE);

    // Act
    const deleted = await deleteCandidate(
      { plan: { cleanupPolicy: 'keep-recommended' }, candidate: CANDIDATE },
      { host: sagemaker, logger: silentLogger },
    );

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(deleted).toEqual({ endpoints: [], endpointConfigs: [], models: [], stoppedCompilationJobs: [] });
  });

  it('deletes the proof’s endpoint even when the policy keeps the recommended one: it is never the one kept', async () => {
    // Arrange
    const sagemaker = new FakeSageMaker({ describesUntilInService: 0 });
    const proof = plannedCandidate('c1-c5-xlarge-prove', 'ml.c5.xlarge', 0.204, {
      initialInstanceCount: 3,
      proofOf: 'c1-c5-xlarge',
    });
    await deployed(sagemaker, proof);

    // Act
    const deleted = await deleteCandidate(
      { plan: { cleanupPolicy: 'keep-recommended' }, candidate: proof },
      { host: sagemaker, logger: silentLogger },
    );

    // Assert
    expect(sagemaker.calls).toEqual([
      'DeleteEndpoint mso-run-ab12cd34-ep-c1-c5-xlarge-prove',
      'DeleteEndpointConfig mso-run-ab12cd34-ec-c1-c5-xlarge-prove',
      'DeleteModel mso-run-ab12cd34-m-c1-c5-xlarge-prove',
    ]);
    expect(deleted.endpoints).toEqual(['mso-run-ab12cd34-ep-c1-c5-xlarge-prove']);
  });

  it("never deletes the user's existing endpoint", async () => {
    // Arrange
    const sagemaker = new FakeSageMaker();
    sagemaker.addExistingEndpoint('team-endpoint', 'ml.c5.xlarge');
    const existing = plannedCandidate('existing', 'ml.c5.xlarge', 0.204, {
      kind: 'existing',
      endpointName: 'team-endpoint',
    });

    // Act
    await deleteCandidate(
      { plan: { cleanupPolicy: 'delete-all' }, candidate: existing },
      { host: sagemaker, logger: silentLogger },
    );

    // Assert
    expect(sagemaker.calls).toEqual([]);
  });

  it('fails with ResourceBusyError while the endpoint is still creating, so the workflow retries', async () => {
    // Arrange: Creating at the first DescribeEndpoint.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 1 });
    await deployed(sagemaker, CANDIDATE);

    // Act
    const deletion = deleteCandidate(
      { plan: { cleanupPolicy: 'delete-all' }, candidate: CANDIDATE },
      { host: sagemaker, logger: silentLogger },
    );

    // Assert
    await expect(deletion).rejects.toMatchObject({
      name: ErrorNames.resourceBusy,
      message: 'Endpoint mso-run-ab12cd34-ep-c1-c5-xlarge is Creating; it can be deleted once that ends',
    });
    expect(sagemaker.calls).toEqual([]);
  });
});
