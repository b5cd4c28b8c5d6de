import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { TransportFactory } from '../../handlers/ports.js';
import {
  createLoadTestRuntimeClient,
  createSageMakerRuntimeTransport,
  type LoadTestClientOptions,
} from './sagemaker-runtime-transport.js';

export interface RuntimeTransportFactoryOptions {
  /** @default the SDK's region chain (AWS_REGION in Lambda) */
  readonly region?: string;
  /** @default createLoadTestRuntimeClient */
  readonly createClient?: (options: LoadTestClientOptions) => SageMakerRuntimeClient;
}

/**
 * `TransportFactory` for load workers on AWS: `InvokeEndpoint` through a runtime client sized for
 * the plan (sockets ≥ concurrency, the plan's request timeout).
 *
 * The client is built on the first call and kept for the next invocations of the same execution
 * environment (call the factory at module scope); it is rebuilt only when a plan asks for other
 * sizes. Invocations of one Lambda environment never overlap, so closing the previous client
 * cannot cut off a running load test. The client is deliberately not traced: an X-Ray subsegment
 * per inference would cost more than the inference at load-test rates.
 */
export function createRuntimeTransportFactory(
  options: RuntimeTransportFactoryOptions = {},
): TransportFactory {
  const createClient = options.createClient ?? createLoadTestRuntimeClient;
  let current: { readonly key: string; readonly client: SageMakerRuntimeClient } | undefined;

  return (target) => {
    const key = `${target.connections}/${target.requestTimeoutMs}`;
    if (current?.key !== key) {
      current?.client.destroy();
      current = {
        key,
        client: createClient({
          ...(options.region === undefined ? {} : { region: options.region }),
          maxSockets: target.connections,
          requestTimeoutMs: target.requestTimeoutMs,
        }),
      };
    }
    return createSageMakerRuntimeTransport({ client: current.client, endpointName: target.endpointName });
  };
}
