import {
  ApplicationAutoScalingClient,
  ApplicationAutoScalingServiceException,
  DeregisterScalableTargetCommand,
  ObjectNotFoundException,
} from '@aws-sdk/client-application-auto-scaling';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../handlers/contracts/errors.js';
import { ApplicationAutoScalingRegistry } from '../../../lambdas/adapters/application-autoscaling-registry.js';

const autoscaling = mockClient(ApplicationAutoScalingClient);
const registry = new ApplicationAutoScalingRegistry(
  new ApplicationAutoScalingClient({ region: 'us-east-1' }),
);

function serviceError(name: string, message: string): ApplicationAutoScalingServiceException {
  return new ApplicationAutoScalingServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

describe('ApplicationAutoScalingRegistry', () => {
  beforeEach(() => {
    autoscaling.reset();
  });

  it("deregisters the variant's scalable target in the sagemaker namespace and says so", async () => {
    // Arrange
    autoscaling.on(DeregisterScalableTargetCommand).resolves({});

    // Act
    const deregistered = await registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

    // Assert
    expect(deregistered).toBe(true);
    expect(
      autoscaling.commandCalls(DeregisterScalableTargetCommand).map((call) => call.args[0].input),
    ).toEqual([
      {
        ServiceNamespace: 'sagemaker',
        ResourceId: 'endpoint/mso-old-1a2b3c4d-ep-c1/variant/AllTraffic',
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      },
    ]);
  });

  it('returns false when the variant was never registered', async () => {
    // Arrange
    autoscaling.on(DeregisterScalableTargetCommand).rejects(
      new ObjectNotFoundException({
        message: 'No scalable target found for service namespace: sagemaker',
        $metadata: { httpStatusCode: 400 },
      }),
    );

    // Act
    const deregistered = await registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

    // Assert
    expect(deregistered).toBe(false);
  });

  it('fails when throttled beyond the SDK retries, with TransientServiceError', async () => {
    // Arrange
    autoscaling
      .on(DeregisterScalableTargetCommand)
      .rejects(serviceError('ThrottlingException', 'Rate exceeded'));

    // Act
    const deregistering = registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

    // Assert
    await expect(deregistering).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails when the caller may not deregister, rethrowing the SDK error unchanged', async () => {
    // Arrange
    const denied = serviceError(
      'AccessDeniedException',
      'not authorized to perform DeregisterScalableTarget',
    );
    autoscaling.on(DeregisterScalableTargetCommand).rejects(denied);

    // Act
    const deregistering = registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

    // Assert
    await expect(deregistering).rejects.toBe(denied);
  });
});
