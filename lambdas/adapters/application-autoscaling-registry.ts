import {
  type ApplicationAutoScalingClient,
  DeregisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { TransientServiceError } from '../../handlers/contracts/errors.js';
import type { ScalingRegistry } from '../../handlers/ports.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `ScalingRegistry` over Application Auto Scaling. A SageMaker variant's scalable target is named
 * `endpoint/<endpoint>/variant/<variant>` in the `sagemaker` namespace, on the dimension
 * `sagemaker:variant:DesiredInstanceCount` (SageMaker developer guide, "Delete a scaling policy").
 */
export const SAGEMAKER_VARIANT_DIMENSION = 'sagemaker:variant:DesiredInstanceCount';

export function variantResourceId(endpointName: string, variantName: string): string {
  return `endpoint/${endpointName}/variant/${variantName}`;
}

export class ApplicationAutoScalingRegistry implements ScalingRegistry {
  constructor(private readonly client: ApplicationAutoScalingClient) {}

  async deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const resourceId = variantResourceId(endpointName, variantName);
    try {
      await this.client.send(
        new DeregisterScalableTargetCommand({
          ServiceNamespace: 'sagemaker',
          ResourceId: resourceId,
          ScalableDimension: SAGEMAKER_VARIANT_DIMENSION,
        }),
      );
      return true;
    } catch (error) {
      // The variant was never registered (most candidates are not autoscaled), or is already gone.
      if (errorName(error) === 'ObjectNotFoundException') return false;
      if (isTransient(error)) {
        throw new TransientServiceError(
          `DeregisterScalableTarget for ${resourceId} failed after the SDK's own retries: ` +
            `${errorName(error) ?? 'Error'}: ${errorMessage(error)}. The next sweep retries it.`,
          { resourceId, errorName: errorName(error) },
          { cause: error },
        );
      }
      throw error;
    }
  }
}
