import { describe, expect, it } from '@jest/globals';
import { EndpointFailedError } from '../../../core/contracts/errors.js';
import {
  createLocalStreamTransportFactory,
  createLocalTransportFactory,
} from '../../../local/adapters/local-transport-factory.js';

describe('createLocalTransportFactory', () => {
  it('opens a transport to the URL the host gives for the endpoint', async () => {
    // Prepare
    const asked: string[] = [];
    const factory = createLocalTransportFactory({
      endpointUrl: (name) => {
        asked.push(name);
        return 'http://127.0.0.1:9';
      },
    });

    // Act
    const transport = factory({ endpointName: 'mso-r1-ep-a', connections: 2, requestTimeoutMs: 1000 });

    // Assert
    expect(asked).toEqual(['mso-r1-ep-a']);
    expect(typeof transport.invoke).toBe('function');
    await transport.close?.();
  });

  it('fails with EndpointFailedError when the endpoint is not in service locally', () => {
    // Prepare
    const factory = createLocalTransportFactory({ endpointUrl: () => undefined });

    // Act
    const open = () => factory({ endpointName: 'prod-resnet', connections: 1, requestTimeoutMs: 1000 });

    // Assert
    expect(open).toThrow(EndpointFailedError);
    expect(open).toThrow(/Endpoint prod-resnet is not in service locally/);
  });
});

describe('createLocalStreamTransportFactory', () => {
  it('opens a stream transport to the URL the host gives for the endpoint', async () => {
    // Prepare
    const asked: string[] = [];
    const factory = createLocalStreamTransportFactory({
      endpointUrl: (name) => {
        asked.push(name);
        return 'http://127.0.0.1:9';
      },
    });

    // Act
    const transport = factory({ endpointName: 'mso-r1-ep-a', connections: 2, requestTimeoutMs: 1000 });

    // Assert
    expect(asked).toEqual(['mso-r1-ep-a']);
    expect(typeof transport.invokeStream).toBe('function');
    await transport.close?.();
  });

  it('fails with EndpointFailedError when the endpoint is not in service locally', () => {
    // Prepare
    const factory = createLocalStreamTransportFactory({ endpointUrl: () => undefined });

    // Act
    const open = () => factory({ endpointName: 'prod-llm', connections: 1, requestTimeoutMs: 1000 });

    // Assert
    expect(open).toThrow(EndpointFailedError);
    expect(open).toThrow(/Endpoint prod-llm is not in service locally/);
  });
});
