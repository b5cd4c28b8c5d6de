import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { StreamTransportFactory, TransportFactory } from '../../core/ports/index.js';
import {
  createLoadTestRuntimeClient,
  createSageMakerRuntimeTransport,
  type LoadTestClientOptions,
} from './sagemaker-runtime-transport.js';
import { createSageMakerStreamTransport } from './sagemaker-stream-transport.js';

type Target = Parameters<TransportFactory>[0];

export interface RuntimeTransportFactoryOptions {
  /** @default the SDK's region chain (AWS_REGION in Lambda) */
  readonly region?: string;
  /** @default createLoadTestRuntimeClient */
  readonly createClient?: (options: LoadTestClientOptions) => SageMakerRuntimeClient;
}

/** One client per plan sizes, built on first use and replaced (the old one destroyed) when they change. */
function clientCache(options: RuntimeTransportFactoryOptions): (target: Target) => SageMakerRuntimeClient {
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
    return current.client;
  };
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
  const clientFor = clientCache(options);
  return (target) =>
    createSageMakerRuntimeTransport({ client: clientFor(target), endpointName: target.endpointName });
}

/**
 * `StreamTransportFactory` for load workers on AWS: `InvokeEndpointWithResponseStream` through a
 * runtime client sized and kept as `createRuntimeTransportFactory`'s (its own: a worker opens one
 * kind of transport per plan, so a Lambda environment builds the other client only if it later
 * runs a plan of the other kind), with the plan's request timeout over the whole stream.
 */
export function createRuntimeStreamTransportFactory(
  options: RuntimeTransportFactoryOptions = {},
): StreamTransportFactory {
  const clientFor = clientCache(options);
  return (target) =>
    createSageMakerStreamTransport({
      client: clientFor(target),
      endpointName: target.endpointName,
      requestTimeoutMs: target.requestTimeoutMs,
    });
}
