import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { EndpointStatuses } from '../../../core/ports/index.js';
import type { InferenceComponentSpec } from '../../../core/deployment/inference-component-host.js';
import { SageMakerComponentHost } from '../../../lambdas/adapters/sagemaker-component-host.js';
import { SageMakerModelHost } from '../../../lambdas/adapters/sagemaker-model-host.js';
import { AwsRecorder } from '../fake-aws/recorder.js';
import {
  ACCOUNT_ID,
  FakeSageMakerService,
  REGION,
  type SageMakerFaults,
} from '../fake-aws/sagemaker-service.js';

/** The role SageMaker assumes for the components (the stack's execution role, as the harness names it). */
export const COMPONENT_ROLE_ARN = `arn:aws:iam::${ACCOUNT_ID}:role/mso-sagemaker-execution`;

export const COMPONENT_NAMES = {
  model: 'mso-run-1a2b3c4d-m-gpu',
  endpointConfig: 'mso-run-1a2b3c4d-ec-gpu',
  endpoint: 'mso-run-1a2b3c4d-ep-gpu',
  component: 'mso-run-1a2b3c4d-ic-gpu-x2',
} as const;

export const COMPONENT_TAGS = {
  'mso:project': 'model-serving-optimizer',
  'mso:run-id': 'run',
  'mso:candidate-id': 'gpu-x2',
};

/**
 * SageMaker's control plane faked and validated (every request checked against the API model by
 * the recorder), with the two SageMaker adapters over it.
 */
export interface ComponentWorld {
  readonly recorder: AwsRecorder;
  readonly sagemaker: FakeSageMakerService;
  readonly models: SageMakerModelHost;
  readonly components: SageMakerComponentHost;
}

export function componentWorld(faults: SageMakerFaults = {}): ComponentWorld {
  const recorder = new AwsRecorder();
  const sagemaker = new FakeSageMakerService(faults);
  const client = new SageMakerClient({
    region: REGION,
    credentials: { accessKeyId: 'AKIDCONFORMANCE', secretAccessKey: 'conformance' },
  });
  sagemaker.install(client, recorder);
  return {
    recorder,
    sagemaker,
    models: new SageMakerModelHost({ client, executionRoleArn: COMPONENT_ROLE_ARN }),
    components: new SageMakerComponentHost({ client, executionRoleArn: COMPONENT_ROLE_ARN }),
  };
}

/** The component a test deploys: two copies of one GPU each on the endpoint's one instance. */
export function componentSpec(overrides: Partial<InferenceComponentSpec> = {}): InferenceComponentSpec {
  return {
    inferenceComponentName: COMPONENT_NAMES.component,
    endpointName: COMPONENT_NAMES.endpoint,
    variantName: 'AllTraffic',
    modelName: COMPONENT_NAMES.model,
    perCopy: { acceleratorDevices: 1, cpuCores: 4, minMemoryMb: 8192 },
    copyCount: 2,
    tags: COMPONENT_TAGS,
    ...overrides,
  };
}

/** The model, a component endpoint config, the endpoint, described until it is in service. */
export async function deployComponentEndpoint(world: ComponentWorld): Promise<void> {
  await world.models.createModel({
    modelName: COMPONENT_NAMES.model,
    image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1-gpu-py310',
    modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
    environment: {},
    tags: COMPONENT_TAGS,
  });
  await world.components.createComponentEndpointConfig({
    endpointConfigName: COMPONENT_NAMES.endpointConfig,
    variantName: 'AllTraffic',
    instanceType: 'ml.g6.12xlarge',
    initialInstanceCount: 1,
    managedInstanceScaling: { minInstanceCount: 1, maxInstanceCount: 2 },
    routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    tags: COMPONENT_TAGS,
  });
  await world.models.createEndpoint({
    endpointName: COMPONENT_NAMES.endpoint,
    endpointConfigName: COMPONENT_NAMES.endpointConfig,
    tags: COMPONENT_TAGS,
  });
  for (let look = 0; look < 5; look += 1) {
    const endpoint = await world.models.describeEndpoint(COMPONENT_NAMES.endpoint);
    if (endpoint?.status === EndpointStatuses.inService) return;
  }
  throw new Error(`${COMPONENT_NAMES.endpoint} did not come into service`);
}
