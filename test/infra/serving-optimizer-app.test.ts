import { describe, expect, it } from '@jest/globals';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { buildServingOptimizerApp } from '../../infra/serving-optimizer-app.js';
import { checkedApp } from '../support/checked-apps.js';
import { createTestApp, TEST_ENV } from './app.js';

/** The synth with an unprotected bucket runs cdk-nag and Guard: many seconds on a busy machine. */
const APP_SYNTH_TIMEOUT_MS = 240_000;

let unprotectedSynthError: unknown;

/**
 * The error of synthesizing the app with an unprotected bucket added: both plugins report it in the
 * same synth, so the two tests share one. The stack leaves the workflows out: what these tests check
 * is that the app registers both plugins, and Guard takes ~1 s over that template instead of ~8 s
 * over the whole stack's (the first test synthesizes the whole stack with both).
 */
function synthErrorWithUnprotectedBucket(): unknown {
  if (unprotectedSynthError !== undefined) return unprotectedSynthError;
  const app = createTestApp();
  const { stack } = buildServingOptimizerApp(app, TEST_ENV, { includeWorkflows: false });
  new Bucket(stack, 'Unprotected');
  try {
    app.synth();
  } catch (error) {
    unprotectedSynthError = error;
    return error;
  }
  throw new Error('expected the synth of an app with an unprotected bucket to fail, and it passed');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

describe('buildServingOptimizerApp', () => {
  it(
    'synthesizes the ServingOptimizer stack with the cdk-nag, CloudFormation Guard and built-in CloudFormation validation checks passing',
    () => {
      // Act: buildServingOptimizerApp(app, TEST_ENV) synthesized with every check on, once for
      // every suite that reads it (test/support/checked-apps.ts); a finding throws here.
      const synthesized = checkedApp('default');

      // Assert
      expect(synthesized.stackName).toBe('ServingOptimizer');
      expect(synthesized.environment).toEqual({ account: '123456789012', region: 'us-east-1' });
    },
    APP_SYNTH_TIMEOUT_MS,
  );

  it(
    'fails synthesis when a resource breaks an AwsSolutions rule without acknowledgment',
    () => {
      // Act
      const error = synthErrorWithUnprotectedBucket();

      // Assert
      expect(messageOf(error)).toMatch(/ServingOptimizer\/Unprotected\/Resource[\s\S]*AwsSolutions-S10/);
    },
    APP_SYNTH_TIMEOUT_MS,
  );

  it(
    'fails synthesis when a resource breaks a CloudFormation Guard rule without acknowledgment',
    () => {
      // Act
      const error = synthErrorWithUnprotectedBucket();

      // Assert
      expect(messageOf(error)).toMatch(
        /\[CT\.S3\.PR\.10\][^\n]*\(cdk-validator-cfnguard\)\n\s*ServingOptimizer\/Unprotected\/Resource/,
      );
    },
    APP_SYNTH_TIMEOUT_MS,
  );
});
