import { describe, expect, it } from '@jest/globals';
import { getNumberEnv, getOptionalEnv, getRequiredEnv } from '../../lambdas/config.js';

describe('getRequiredEnv', () => {
  it('returns the value of a set variable', () => {
    expect(getRequiredEnv('ARTIFACTS_BUCKET', undefined, { ARTIFACTS_BUCKET: 'mso-artifacts' })).toBe(
      'mso-artifacts',
    );
  });

  it('fails when the variable is unset, naming it and the stack that sets it', () => {
    expect(() => getRequiredEnv('ARTIFACTS_BUCKET', undefined, {})).toThrow(
      /ARTIFACTS_BUCKET is not set.*ServingOptimizerStack \(infra\/stacks\/serving-optimizer-stack\.ts\)/,
    );
  });

  it('fails when the variable is empty, saying so', () => {
    expect(() => getRequiredEnv('ARTIFACTS_BUCKET', 'set by the test', { ARTIFACTS_BUCKET: ' ' })).toThrow(
      'Environment variable ARTIFACTS_BUCKET is empty, expected a value: set by the test',
    );
  });
});

describe('getOptionalEnv', () => {
  it('treats an empty value as unset', () => {
    expect(getOptionalEnv('STEP_NAME', { STEP_NAME: '' })).toBeUndefined();
  });
});

describe('getNumberEnv', () => {
  const bounds = { min: 1, max: 3600, integer: true };

  it('returns the fallback when the variable is unset', () => {
    expect(getNumberEnv('ENDPOINT_POLL_SECONDS', 30, bounds, {})).toBe(30);
  });

  it('parses a value within bounds', () => {
    expect(getNumberEnv('ENDPOINT_POLL_SECONDS', 30, bounds, { ENDPOINT_POLL_SECONDS: '5' })).toBe(5);
  });

  it('fails when the value is not a number, quoting it and the expected range', () => {
    expect(() => getNumberEnv('ENDPOINT_POLL_SECONDS', 30, bounds, { ENDPOINT_POLL_SECONDS: '30s' })).toThrow(
      'Environment variable ENDPOINT_POLL_SECONDS: got "30s", expected an integer from 1 to 3600',
    );
  });

  it('fails when an integer is expected and the value has a fraction', () => {
    expect(() => getNumberEnv('ENDPOINT_POLL_SECONDS', 30, bounds, { ENDPOINT_POLL_SECONDS: '2.5' })).toThrow(
      'got "2.5", expected an integer from 1 to 3600',
    );
  });

  it('fails when the value is out of bounds', () => {
    expect(() =>
      getNumberEnv('LOAD_START_DELAY_SECONDS', 10, { min: 0 }, { LOAD_START_DELAY_SECONDS: '-1' }),
    ).toThrow('Environment variable LOAD_START_DELAY_SECONDS: got -1, expected a number of at least 0');
  });
});
