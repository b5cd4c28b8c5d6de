import { EndpointFailedError } from '../../core/contracts/index.js';
import type { StreamTransportFactory, TransportFactory } from '../../core/ports/index.js';
import { createHttpInvokeTransport } from './http-invoke-transport.js';
import { createHttpStreamTransport } from './http-stream-transport.js';

/** What the factory needs from the local model host: where an endpoint's server listens. */
export interface LocalEndpointDirectory {
  endpointUrl(endpointName: string): string | undefined;
}

/**
 * Local mode's `TransportFactory`: an endpoint name becomes HTTP to its model server on loopback,
 * found in the local model host's registry (SageMaker Runtime does the same lookup on AWS).
 */
export function createLocalTransportFactory(endpoints: LocalEndpointDirectory): TransportFactory {
  return ({ endpointName, connections, requestTimeoutMs }) =>
    createHttpInvokeTransport({ origin: originOf(endpoints, endpointName), connections, requestTimeoutMs });
}

/** Local mode's `StreamTransportFactory`: the same lookup, chunked HTTP read piece by piece. */
export function createLocalStreamTransportFactory(endpoints: LocalEndpointDirectory): StreamTransportFactory {
  return ({ endpointName, connections, requestTimeoutMs }) =>
    createHttpStreamTransport({ origin: originOf(endpoints, endpointName), connections, requestTimeoutMs });
}

function originOf(endpoints: LocalEndpointDirectory, endpointName: string): string {
  const origin = endpoints.endpointUrl(endpointName);
  if (origin === undefined) {
    throw new EndpointFailedError(
      `Endpoint ${endpointName} is not in service locally: expected an endpoint this run created and started (local mode cannot reach SageMaker endpoints)`,
      { endpointName },
    );
  }
  return origin;
}
