import { EndpointFailedError } from '../../handlers/contracts/errors.js';
import type { TransportFactory } from '../../handlers/ports.js';
import { createHttpInvokeTransport } from './http-invoke-transport.js';

/** What the factory needs from the local model host: where an endpoint's server listens. */
export interface LocalEndpointDirectory {
  endpointUrl(endpointName: string): string | undefined;
}

/**
 * Local mode's `TransportFactory`: an endpoint name becomes HTTP to its model server on loopback,
 * found in the local model host's registry (SageMaker Runtime does the same lookup on AWS).
 */
export function createLocalTransportFactory(endpoints: LocalEndpointDirectory): TransportFactory {
  return ({ endpointName, connections, requestTimeoutMs }) => {
    const origin = endpoints.endpointUrl(endpointName);
    if (origin === undefined) {
      throw new EndpointFailedError(
        `Endpoint ${endpointName} is not in service locally: expected an endpoint this run created and started (local mode cannot reach SageMaker endpoints)`,
        { endpointName },
      );
    }
    return createHttpInvokeTransport({ origin, connections, requestTimeoutMs });
  };
}
