import { describe, expect, it } from '@jest/globals';
import { Stack, Validations } from 'aws-cdk-lib';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { acknowledgeGuardRule } from '../../../infra/nag/acknowledge.js';
import { GuardValidator } from '../../../infra/nag/guard.js';
import { createTestApp, TEST_ENV } from '../app.js';

/** cfn-guard runs as a child process over every bundled rule: seconds on a busy machine. */
const GUARD_TIMEOUT_MS = 120_000;

/** An app checked by Guard alone, with one plain bucket (no encryption, logging or versioning). */
function appWithPlainBucket() {
  const app = createTestApp();
  Validations.of(app).addPlugins(new GuardValidator());
  const stack = new Stack(app, 'GuardTest', { env: TEST_ENV });
  const bucket = new CfnBucket(stack, 'Plain');
  return { app, bucket };
}

describe('GuardValidator', () => {
  it(
    'refuses an unencrypted bucket, naming the Control Tower rule and the resource',
    () => {
      // Prepare
      const { app } = appWithPlainBucket();

      // Act
      const act = () => app.synth();

      // Assert
      expect(act).toThrow(/\[CT\.S3\.PR\.10\][^\n]*\n\s*GuardTest\/Plain \(Plain\)/);
    },
    GUARD_TIMEOUT_MS,
  );

  it(
    'still refuses the unacknowledged findings of a resource when one of its findings is acknowledged',
    () => {
      // Prepare: CDK treats a finding without a severity as no error once any finding of the plugin is
      // acknowledged; the validator marks its findings as errors.
      const { app, bucket } = appWithPlainBucket();
      acknowledgeGuardRule(
        bucket,
        's3_bucket_logging_enabled_check',
        'Test of the acknowledgment of one rule.',
      );

      // Act
      const act = () => app.synth();

      // Assert
      expect(act).toThrow(/\[CT\.S3\.PR\.10\]/);
    },
    GUARD_TIMEOUT_MS,
  );

  it('refuses to disable a rule without a reason', () => {
    // Act
    const act = () => new GuardValidator({ 'ct-s3-pr-10': 'N/A' });

    // Assert
    expect(act).toThrow(
      'CloudFormation Guard rule ct-s3-pr-10 is disabled with the reason "N/A": expected a sentence of at ' +
        'least 30 characters saying why the rule does not apply to this project',
    );
  });
});
