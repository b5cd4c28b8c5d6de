import { describe, expect, it } from '@jest/globals';
import {
  componentsProgress,
  createComponents,
  deleteEndpointComponents,
} from '../../../core/deployment/component-lifecycle.js';
import {
  COMPONENT_NAMES,
  componentSpec,
  componentWorld,
  deployComponentEndpoint,
} from '../../conformance/support/component-endpoint.js';

const COMPONENT = COMPONENT_NAMES.component;

describe('the life of an endpoint’s inference components', () => {
  it('creates the components on the endpoint in service, and waits until they are in service', async () => {
    // Prepare
    const world = componentWorld({ describesUntilComponentSettles: 1 });
    await deployComponentEndpoint(world);

    // Act
    await createComponents(world.components, [componentSpec()]);
    const first = await componentsProgress(world.components, [COMPONENT]);
    const second = await componentsProgress(world.components, [COMPONENT]);

    // Assert
    expect(first).toEqual({ state: 'waiting', waitingOn: [COMPONENT] });
    expect(second).toEqual({
      state: 'in-service',
      components: [
        {
          name: COMPONENT,
          endpointName: COMPONENT_NAMES.endpoint,
          status: 'InService',
          desiredCopyCount: 2,
          currentCopyCount: 2,
        },
      ],
    });
    expect(world.recorder.violationLines()).toEqual([]);
  });

  it('fails the candidate with SageMaker’s reason when a component fails to start', async () => {
    // Prepare
    const reason = 'Insufficient accelerator devices to place 2 copies on ml.g6.12xlarge';
    const world = componentWorld({ failingComponents: { [COMPONENT]: reason } });
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);

    // Act
    await componentsProgress(world.components, [COMPONENT]);
    const progress = await componentsProgress(world.components, [COMPONENT]);

    // Assert
    expect(progress).toEqual({ state: 'failed', inferenceComponentName: COMPONENT, failureReason: reason });
  });

  it('fails when a component it waits on does not exist', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);

    // Act
    const progress = await componentsProgress(world.components, [COMPONENT]);

    // Assert
    expect(progress).toEqual({
      state: 'failed',
      inferenceComponentName: COMPONENT,
      failureReason: `inference component ${COMPONENT} does not exist`,
    });
  });

  it('deletes the components before the endpoint, which SageMaker refuses to delete while they remain', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);
    await componentsProgress(world.components, [COMPONENT]);
    await componentsProgress(world.components, [COMPONENT]);

    // Act
    const refused = world.models.deleteEndpoint(COMPONENT_NAMES.endpoint);
    const firstRound = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);
    const secondRound = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);
    const lastRound = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);
    const endpointDeleted = await world.models.deleteEndpoint(COMPONENT_NAMES.endpoint);

    // Assert
    await expect(refused).rejects.toThrow(/hosts inference components/);
    expect(firstRound).toEqual({
      deleted: [COMPONENT],
      remaining: [{ name: COMPONENT, status: 'Deleting' }],
    });
    expect(secondRound).toEqual({ deleted: [], remaining: [{ name: COMPONENT, status: 'Deleting' }] });
    expect(lastRound).toEqual({ deleted: [], remaining: [] });
    expect(endpointDeleted).toBe(true);
    expect(world.recorder.inputsOf('DeleteInferenceComponentCommand')).toEqual([
      { InferenceComponentName: COMPONENT },
    ]);
  });

  it('waits for a component still being created before deleting it, when the run is aborted', async () => {
    // Prepare
    const world = componentWorld({ describesUntilComponentSettles: 1 });
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);

    // Act: the clean-up's first round comes while SageMaker still creates the component.
    const whileCreating = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);
    await world.components.describeInferenceComponent(COMPONENT);
    await world.components.describeInferenceComponent(COMPONENT);
    const settled = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);

    // Assert
    expect(whileCreating).toEqual({ deleted: [], remaining: [{ name: COMPONENT, status: 'Creating' }] });
    expect(settled).toEqual({ deleted: [COMPONENT], remaining: [{ name: COMPONENT, status: 'Deleting' }] });
    expect(world.recorder.violationLines()).toEqual([]);
  });

  it('deletes a component that failed to start, so the endpoint can go', async () => {
    // Prepare
    const world = componentWorld({
      failingComponents: { [COMPONENT]: 'The model container failed its health check' },
    });
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);
    await componentsProgress(world.components, [COMPONENT]);
    await componentsProgress(world.components, [COMPONENT]);

    // Act
    const round = await deleteEndpointComponents(world.components, COMPONENT_NAMES.endpoint);

    // Assert
    expect(round.deleted).toEqual([COMPONENT]);
  });

  it('leaves the components of other endpoints alone', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);
    await componentsProgress(world.components, [COMPONENT]);
    await componentsProgress(world.components, [COMPONENT]);

    // Act
    const round = await deleteEndpointComponents(world.components, 'mso-run-1a2b3c4d-ep-other');

    // Assert
    expect(round).toEqual({ deleted: [], remaining: [] });
    expect(world.sagemaker.inferenceComponents.has(COMPONENT)).toBe(true);
  });
});
