import { describe, expect, it } from '@jest/globals';
import {
  createComponentEndpointConfigRequest,
  createInferenceComponentRequest,
} from '../../../core/deployment/component-requests.js';

const ROLE = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';

describe('the requests of an endpoint of inference components', () => {
  it('leaves scaling, routing and tags out of the endpoint config when none is asked for', () => {
    // Act
    const request = createComponentEndpointConfigRequest(
      {
        endpointConfigName: 'mso-r-ec-cpu',
        variantName: 'AllTraffic',
        instanceType: 'ml.c7i.4xlarge',
        initialInstanceCount: 2,
        tags: {},
      },
      ROLE,
    );

    // Assert
    expect(request).toEqual({
      EndpointConfigName: 'mso-r-ec-cpu',
      ExecutionRoleArn: ROLE,
      ProductionVariants: [
        { VariantName: 'AllTraffic', InstanceType: 'ml.c7i.4xlarge', InitialInstanceCount: 2 },
      ],
    });
  });

  it('fails when the managed scaling minimum is above its maximum', () => {
    // Act
    const build = (): unknown =>
      createComponentEndpointConfigRequest(
        {
          endpointConfigName: 'mso-r-ec-cpu',
          variantName: 'AllTraffic',
          instanceType: 'ml.c7i.4xlarge',
          initialInstanceCount: 1,
          managedInstanceScaling: { minInstanceCount: 3, maxInstanceCount: 2 },
          tags: {},
        },
        ROLE,
      );

    // Assert
    expect(build).toThrow(
      'got managed instance scaling from 3 to 2 instances, expected a minimum no larger than the maximum',
    );
  });

  it('sends only the resources a copy asks for, and the memory ceiling when there is one', () => {
    // Act
    const request = createInferenceComponentRequest({
      inferenceComponentName: 'mso-r-ic-cpu-x4',
      endpointName: 'mso-r-ep-cpu',
      variantName: 'AllTraffic',
      modelName: 'mso-r-m-cpu',
      perCopy: { minMemoryMb: 1024, maxMemoryMb: 2048 },
      copyCount: 8,
      tags: {},
    });

    // Assert
    expect(request).toEqual({
      InferenceComponentName: 'mso-r-ic-cpu-x4',
      EndpointName: 'mso-r-ep-cpu',
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: 'mso-r-m-cpu',
        ComputeResourceRequirements: { MinMemoryRequiredInMb: 1024, MaxMemoryRequiredInMb: 2048 },
      },
      RuntimeConfig: { CopyCount: 8 },
    });
  });
});
