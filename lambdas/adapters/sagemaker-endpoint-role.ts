import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { EndpointRoleReader } from '../../core/async/index.js';
import { isNotFound } from './sagemaker-errors.js';

/**
 * The execution role of an endpoint's (first variant's) model: DescribeEndpoint →
 * DescribeEndpointConfig (`ProductionVariants[0].ModelName`) → DescribeModel (`ExecutionRoleArn`).
 */
export class SageMakerEndpointRoleReader implements EndpointRoleReader {
  constructor(private readonly client: SageMakerClient) {}

  async executionRoleOf(endpointName: string): Promise<string | undefined> {
    try {
      const endpoint = await this.client.send(new DescribeEndpointCommand({ EndpointName: endpointName }));
      if (endpoint.EndpointConfigName === undefined) return undefined;
      const config = await this.client.send(
        new DescribeEndpointConfigCommand({ EndpointConfigName: endpoint.EndpointConfigName }),
      );
      const modelName = config.ProductionVariants?.[0]?.ModelName;
      if (modelName === undefined) return undefined;
      const model = await this.client.send(new DescribeModelCommand({ ModelName: modelName }));
      return model.ExecutionRoleArn;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
