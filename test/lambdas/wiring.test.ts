import { afterEach, describe, expect, it } from '@jest/globals';
import { endpointTimings } from '../../lambdas/wiring.js';

const VARIABLES = ['ENDPOINT_POLL_SECONDS', 'ENDPOINT_MAX_POLL_SECONDS', 'LOAD_START_DELAY_SECONDS'];

afterEach(() => {
  for (const name of VARIABLES) Reflect.deleteProperty(process.env, name);
});

describe('endpointTimings', () => {
  it('polls from 30 s, backing off to 2 minutes, when nothing is set', () => {
    // Act
    const timings = endpointTimings();

    // Assert
    expect(timings).toMatchObject({ pollSeconds: 30, maxPollSeconds: 120 });
  });

  it('takes a shorter first poll but keeps the back-off ceiling', () => {
    // Prepare
    process.env.ENDPOINT_POLL_SECONDS = '5';

    // Act
    const timings = endpointTimings();

    // Assert
    expect(timings).toMatchObject({ pollSeconds: 5, maxPollSeconds: 120 });
  });

  it('fails when the back-off ceiling is under 30 s, which would spend the history budget', () => {
    // Prepare
    process.env.ENDPOINT_MAX_POLL_SECONDS = '5';

    // Act
    const read = (): unknown => endpointTimings();

    // Assert
    expect(read).toThrow(
      'Environment variable ENDPOINT_MAX_POLL_SECONDS: got 5, expected an integer from 30 to 3600',
    );
  });
});
