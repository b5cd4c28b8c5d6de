import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { QuotaExceededError } from '../../core/contracts/errors.js';
import type * as StepModule from '../../lambdas/step.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

// Powertools reads its variables when step.ts builds it, so the module is imported after they are set.
setStepEnvironment({ STEP_NAME: 'deploy-candidate', POWERTOOLS_LOGGER_LOG_EVENT: 'true' });
let step: typeof StepModule;
beforeAll(async () => {
  step = await import('../../lambdas/step.js');
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('toCoreLogger', () => {
  it('passes details to Powertools as structured keys', () => {
    // Arrange
    const info = jest.spyOn(step.powertoolsLogger, 'info');
    const logger = step.toCoreLogger(step.powertoolsLogger);

    // Act
    logger.info('Endpoint creating', { candidateId: 'c1' });
    logger.info('No details');

    // Assert
    expect(info.mock.calls).toEqual([['Endpoint creating', { candidateId: 'c1' }], ['No details']]);
  });

  it('maps warn and error to the same levels', () => {
    const warn = jest.spyOn(step.powertoolsLogger, 'warn');
    const error = jest.spyOn(step.powertoolsLogger, 'error');
    const logger = step.toCoreLogger(step.powertoolsLogger);

    logger.warn('Candidate skipped', { candidateId: 'c2' });
    logger.error('Broken', { candidateId: 'c3' });

    expect(warn).toHaveBeenCalledWith('Candidate skipped', { candidateId: 'c2' });
    expect(error).toHaveBeenCalledWith('Broken', { candidateId: 'c3' });
  });
});

describe('defineStep', () => {
  it("returns the core function's result, given the event and a logger", async () => {
    const handler = step.defineStep((event: { readonly n: number }, tools) => {
      tools.logger.info('Working');
      return Promise.resolve({ doubled: event.n * 2, remainingMs: tools.context.getRemainingTimeInMillis() });
    });

    await expect(handler({ n: 21 }, fakeContext(42_000))).resolves.toEqual({
      doubled: 42,
      remainingMs: 42_000,
    });
  });

  it('fails with the very error the core threw, so Step Functions matches its literal name', async () => {
    // Arrange
    const quota = new QuotaExceededError('CreateEndpoint for endpoint e failed: quota reached');
    const handler = step.defineStep(() => Promise.reject(quota));

    // Act
    const error = await handler({}, fakeContext()).catch((e: unknown) => e);

    // Assert
    expect(error).toBe(quota);
    expect((error as Error).name).toBe('QuotaExceededError');
  });

  it('logs a failure with its name and message', async () => {
    const error = jest.spyOn(step.powertoolsLogger, 'error');
    const quota = new QuotaExceededError('quota reached');
    const handler = step.defineStep(() => Promise.reject(quota));

    await handler({}, fakeContext()).catch(() => undefined);

    expect(error).toHaveBeenCalledWith('Step failed', quota);
  });

  it('never logs the event, even with POWERTOOLS_LOGGER_LOG_EVENT=true (events can carry task tokens)', async () => {
    // Arrange
    const levels = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
      jest.spyOn(step.powertoolsLogger, level),
    );
    const handler = step.defineStep(() => Promise.reject(new Error('boom')));

    // Act
    await handler({ taskToken: 'AQCEAAAAKgAAAAMAAAAA-secret-token' }, fakeContext()).catch(() => undefined);

    // Assert
    const logged = JSON.stringify(levels.flatMap((spy) => spy.mock.calls));
    expect(logged).not.toContain('secret-token');
    expect(levels.some((spy) => spy.mock.calls.length > 0)).toBe(true);
  });
});

describe('defineStep: one redaction path for errors', () => {
  const token = `AQCEAAAAKgAAAAMAAAAAAAAAAb${'Xy9+Qz0='.repeat(80)}`;

  it('fails with the same error, its class and name kept, its message without the token', async () => {
    // Arrange
    const quota = new QuotaExceededError(`quota reached while storing {"taskToken":"${token}"}`);
    const logged = jest.spyOn(step.powertoolsLogger, 'error');
    const handler = step.defineStep(() => Promise.reject(quota));

    // Act
    const error = await handler({}, fakeContext()).catch((e: unknown) => e);

    // Assert
    expect(error).toBe(quota);
    expect((error as Error).name).toBe('QuotaExceededError');
    expect((error as Error).message).toBe('quota reached while storing {"taskToken":"<task token>"}');
    expect(JSON.stringify(logged.mock.calls)).not.toContain(token);
  });

  it('redacts a token or a presigned signature in any core log line', () => {
    // Arrange
    const info = jest.spyOn(step.powertoolsLogger, 'info');
    const logger = step.toCoreLogger(step.powertoolsLogger);

    // Act
    logger.info(`Resumed ${token}`, { url: 'https://b.s3.amazonaws.com/k?X-Amz-Signature=abc123' });

    // Assert
    expect(info.mock.calls).toEqual([
      ['Resumed <task token>', { url: 'https://b.s3.amazonaws.com/k?X-Amz-Signature=<redacted>' }],
    ]);
  });
});
