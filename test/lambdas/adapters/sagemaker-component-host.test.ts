import { ResourceLimitExceeded, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { QuotaExceededError } from '../../../core/contracts/errors.js';
import { SageMakerComponentHost } from '../../../lambdas/adapters/sagemaker-component-host.js';
import {
  COMPONENT_NAMES,
  COMPONENT_ROLE_ARN,
  componentSpec,
  componentWorld,
  deployComponentEndpoint,
} from '../../conformance/support/component-endpoint.js';

const SAGEMAKER_TAGS = [
  { Key: 'mso:candidate-id', Value: 'gpu-x2' },
  { Key: 'mso:project', Value: 'model-serving-optimizer' },
  { Key: 'mso:run-id', Value: 'run' },
];

describe('SageMakerComponentHost', () => {
  it('creates an endpoint config whose variant names instances, scaling bounds and routing but no model', async () => {
    // Prepare
    const world = componentWorld();

    // Act
    await deployComponentEndpoint(world);

    // Assert
    expect(world.recorder.inputsOf('CreateEndpointConfigCommand')).toEqual([
      {
        EndpointConfigName: COMPONENT_NAMES.endpointConfig,
        ExecutionRoleArn: COMPONENT_ROLE_ARN,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            InstanceType: 'ml.g6.12xlarge',
            InitialInstanceCount: 1,
            ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 1, MaxInstanceCount: 2 },
            RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
          },
        ],
        Tags: SAGEMAKER_TAGS,
      },
    ]);
    expect(world.recorder.violationLines()).toEqual([]);
  });

  it('creates a component with its model, each copy’s resources, the copy count and the tags', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);

    // Act
    await world.components.createInferenceComponent(componentSpec());

    // Assert
    expect(world.recorder.inputsOf('CreateInferenceComponentCommand')).toEqual([
      {
        InferenceComponentName: COMPONENT_NAMES.component,
        EndpointName: COMPONENT_NAMES.endpoint,
        VariantName: 'AllTraffic',
        Specification: {
          ModelName: COMPONENT_NAMES.model,
          ComputeResourceRequirements: {
            NumberOfCpuCoresRequired: 4,
            NumberOfAcceleratorDevicesRequired: 1,
            MinMemoryRequiredInMb: 8192,
          },
        },
        RuntimeConfig: { CopyCount: 2 },
        Tags: SAGEMAKER_TAGS,
      },
    ]);
    expect(world.sagemaker.inferenceComponents.get(COMPONENT_NAMES.component)?.tags).toEqual({
      'mso:project': 'model-serving-optimizer',
      'mso:run-id': 'run',
      'mso:candidate-id': 'gpu-x2',
    });
    expect(world.recorder.violationLines()).toEqual([]);
  });

  it('creates a component again without failing when a retried step asks twice', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await world.components.createInferenceComponent(componentSpec());

    // Act
    const again = world.components.createInferenceComponent(componentSpec());

    // Assert
    await expect(again).resolves.toBeUndefined();
  });

  it('fails when the endpoint is not in service yet', async () => {
    // Prepare
    const world = componentWorld({ describesUntilInService: 3 });
    await world.models.createModel({
      modelName: COMPONENT_NAMES.model,
      image: 'image',
      environment: {},
      tags: {},
    });
    await world.components.createComponentEndpointConfig({
      endpointConfigName: COMPONENT_NAMES.endpointConfig,
      variantName: 'AllTraffic',
      instanceType: 'ml.g6.12xlarge',
      initialInstanceCount: 1,
      tags: {},
    });
    await world.models.createEndpoint({
      endpointName: COMPONENT_NAMES.endpoint,
      endpointConfigName: COMPONENT_NAMES.endpointConfig,
      tags: {},
    });

    // Act
    const early = world.components.createInferenceComponent(componentSpec());

    // Assert
    await expect(early).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining(
        'is Creating: inference components are created on an InService endpoint',
      ),
    });
  });

  it('fails when the endpoint’s variant serves a model of its own', async () => {
    // Prepare
    const world = componentWorld();
    world.sagemaker.addExistingEndpoint({
      endpointName: COMPONENT_NAMES.endpoint,
      instanceType: 'ml.g6.12xlarge',
      instanceCount: 1,
    });
    await world.models.createModel({
      modelName: COMPONENT_NAMES.model,
      image: 'image',
      environment: {},
      tags: {},
    });

    // Act
    const refused = world.components.createInferenceComponent(componentSpec());

    // Assert
    await expect(refused).rejects.toThrow(/Inference Components are not supported in this Endpoint/);
  });

  it('fails when asked to delete a component still being created, as SageMaker refused it', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await world.components.createInferenceComponent(componentSpec());

    // Act
    const refused = world.components.deleteInferenceComponent(COMPONENT_NAMES.component);

    // Assert
    await expect(refused).rejects.toThrow(/is Creating: it can be deleted once it is InService or Failed/);
  });

  it('answers undefined for a component that does not exist, and false when deleting it', async () => {
    // Prepare
    const world = componentWorld();

    // Act
    const described = await world.components.describeInferenceComponent('mso-run-1a2b3c4d-ic-none');
    const deleted = await world.components.deleteInferenceComponent('mso-run-1a2b3c4d-ic-none');

    // Assert
    expect(described).toBeUndefined();
    expect(deleted).toBe(false);
  });

  it('lists only the components of the endpoint it is asked about', async () => {
    // Prepare
    const world = componentWorld();
    await deployComponentEndpoint(world);
    await world.components.createInferenceComponent(componentSpec());

    // Act
    const listed = await world.components.listEndpointComponents(COMPONENT_NAMES.endpoint);

    // Assert
    expect(listed).toEqual([
      { name: COMPONENT_NAMES.component, endpointName: COMPONENT_NAMES.endpoint, status: 'Creating' },
    ]);
    expect(world.recorder.inputsOf('ListInferenceComponentsCommand')).toEqual([
      { EndpointNameEquals: COMPONENT_NAMES.endpoint, MaxResults: 100 },
    ]);
  });

  it('fails when the account’s quota is reached, as a QuotaExceededError naming the component', async () => {
    // Prepare
    const client = new SageMakerClient({ region: 'us-east-1' });
    mockClient(client)
      .onAnyCommand()
      .rejects(new ResourceLimitExceeded({ message: 'copies limit reached', $metadata: {} }));
    const host = new SageMakerComponentHost({ client });

    // Act
    const refused = host.createInferenceComponent(componentSpec());

    // Assert
    await expect(refused).rejects.toBeInstanceOf(QuotaExceededError);
    await expect(refused).rejects.toThrow(
      /CreateInferenceComponent for inference component mso-run-1a2b3c4d-ic-gpu-x2/,
    );
  });

  it('fails when SageMaker describes a component without the endpoint that hosts it', async () => {
    // Prepare
    const client = new SageMakerClient({ region: 'us-east-1' });
    mockClient(client).onAnyCommand().resolves({
      InferenceComponentName: COMPONENT_NAMES.component,
      InferenceComponentStatus: 'InService',
    });
    const host = new SageMakerComponentHost({ client });

    // Act
    const described = host.describeInferenceComponent(COMPONENT_NAMES.component);

    // Assert
    await expect(described).rejects.toThrow(/got no EndpointName, expected the endpoint that hosts it/);
  });

  it('fails when it has no execution role for the endpoint config', async () => {
    // Prepare
    const host = new SageMakerComponentHost({ client: new SageMakerClient({ region: 'us-east-1' }) });

    // Act
    const refused = host.createComponentEndpointConfig({
      endpointConfigName: COMPONENT_NAMES.endpointConfig,
      variantName: 'AllTraffic',
      instanceType: 'ml.g6.12xlarge',
      initialInstanceCount: 1,
      tags: {},
    });

    // Assert
    await expect(refused).rejects.toThrow(/needs the SageMaker execution role/);
  });
});
