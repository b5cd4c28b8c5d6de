import { describe, expect, it } from '@jest/globals';
import { ApiLoggingModes } from '../../infra/constructs/run-api.js';
import { API_LOGGING_CONTEXT_KEY, buildServingOptimizerApp } from '../../infra/serving-optimizer-app.js';
import { checkedApp } from '../support/checked-apps.js';
import { createTestApp, TEST_ENV } from './app.js';

/** Reading the checked synthesis may synthesize it first, when no global set-up did. */
const APP_SYNTH_TIMEOUT_MS = 240_000;

// The app's policy checks are tested in serving-optimizer-app.test.ts; this file has the environment
// and CDK context tests.
describe('buildServingOptimizerApp', () => {
  it(
    'synthesizes an environment-agnostic stack when no account or region is given',
    () => {
      // Act: buildServingOptimizerApp(app) with every check `cdk synth` runs, as it builds this
      // stack without credentials (test/support/checked-apps.ts); a finding throws here.
      const synthesized = checkedApp('environmentAgnostic');

      // Assert
      expect(synthesized.environment).toEqual({ account: 'unknown-account', region: 'unknown-region' });
    },
    APP_SYNTH_TIMEOUT_MS,
  );

  it('leaves the run API without logging when the apiLogging context value is unset', () => {
    // Act
    const { stack } = buildServingOptimizerApp(createTestApp(), TEST_ENV);

    // Assert
    expect(stack.runApi?.accessLogs).toBeUndefined();
  });

  it('logs the run API when the apiLogging context value says the account has its role', () => {
    // Prepare
    const app = createTestApp();
    app.node.setContext(API_LOGGING_CONTEXT_KEY, ApiLoggingModes.useAccountRole);

    // Act
    const { stack } = buildServingOptimizerApp(app, TEST_ENV);

    // Assert
    expect(stack.runApi?.accessLogs).toBeDefined();
    expect(stack.runApi?.api.node.tryFindChild('CloudWatchRole')).toBeUndefined();
  });

  it('refuses an apiLogging context value that is not a logging mode', () => {
    // Prepare
    const app = createTestApp();
    app.node.setContext(API_LOGGING_CONTEXT_KEY, 'true');

    // Act
    const act = () => buildServingOptimizerApp(app, TEST_ENV);

    // Assert
    expect(act).toThrow(
      'CDK context apiLogging: got "true", expected one of off, use-account-role, set-account-role',
    );
  });
});
