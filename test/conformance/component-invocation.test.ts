/**
 * The load test through an inference component: the project's runtime transport names the
 * component (`InferenceComponentName`, sent in the X-Amzn-SageMaker-Inference-Component header)
 * and the fake data plane serves only what SageMaker serves on an endpoint made for components.
 */
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { describe, expect, it } from '@jest/globals';
import { componentsProgress, createComponents } from '../../core/deployment/component-lifecycle.js';
import { createSageMakerRuntimeTransport } from '../../lambdas/adapters/sagemaker-runtime-transport.js';
import { FakeRealtimeRuntime } from './fake-aws/realtime-runtime-service.js';
import { REGION } from './fake-aws/sagemaker-service.js';
import {
  COMPONENT_NAMES,
  componentSpec,
  componentWorld,
  deployComponentEndpoint,
  type ComponentWorld,
} from './support/component-endpoint.js';

const REQUEST = { body: new TextEncoder().encode('{"inputs":[[0]]}'), contentType: 'application/json' };

function invoke(world: ComponentWorld, inferenceComponentName?: string) {
  const dataPlane = new FakeRealtimeRuntime(world.sagemaker, { latencyMs: 0, streamFormat: 'tgi' });
  const client = new SageMakerRuntimeClient({
    region: REGION,
    credentials: { accessKeyId: 'AKIDCONFORMANCE', secretAccessKey: 'conformance' },
    maxAttempts: 1,
    requestHandler: dataPlane.httpHandler,
  });
  dataPlane.install(client, world.recorder);
  const transport = createSageMakerRuntimeTransport({
    client,
    endpointName: COMPONENT_NAMES.endpoint,
    ...(inferenceComponentName === undefined ? {} : { inferenceComponentName }),
  });
  return transport.invoke(REQUEST, new AbortController().signal);
}

async function componentInService(): Promise<ComponentWorld> {
  const world = componentWorld();
  await deployComponentEndpoint(world);
  await createComponents(world.components, [componentSpec()]);
  await componentsProgress(world.components, [COMPONENT_NAMES.component]);
  await componentsProgress(world.components, [COMPONENT_NAMES.component]);
  return world;
}

describe('a load test through an inference component', () => {
  it('is answered when it names the component in service on the endpoint', async () => {
    // Prepare
    const world = await componentInService();

    // Act
    const outcome = await invoke(world, COMPONENT_NAMES.component);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(world.recorder.inputsOf('InvokeEndpointCommand')).toEqual([
      expect.objectContaining({
        EndpointName: COMPONENT_NAMES.endpoint,
        InferenceComponentName: COMPONENT_NAMES.component,
      }),
    ]);
    expect(world.recorder.violationLines()).toEqual([]);
  });

  it('fails when it names no component on an endpoint made for components, with SageMaker’s message', async () => {
    // Prepare
    const world = await componentInService();

    // Act
    const outcome = await invoke(world);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      statusCode: 400,
      message: expect.stringContaining('Inference Component Name header is required'),
    });
  });

  it('fails when the component it names is still being created', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await createComponents(world.components, [componentSpec()]);

    // Act
    const outcome = await invoke(world, COMPONENT_NAMES.component);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      statusCode: 400,
      message: expect.stringContaining(`Inference component ${COMPONENT_NAMES.component} is not in service`),
    });
  });
});
