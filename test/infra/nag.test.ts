import { describe, expect, it } from '@jest/globals';
import { Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { createTestApp, TEST_ENV } from './app.js';
import { collectNagFindings } from './nag.js';

describe('collectNagFindings', () => {
  it('reports the AwsSolutions errors of an unprotected bucket', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'NagTest', { env: TEST_ENV });
    new Bucket(stack, 'Plain');

    // Act
    const findings = collectNagFindings(stack);

    // Assert
    expect(findings.map((finding) => `${finding.severity} ${finding.rule} ${finding.constructPath}`)).toEqual(
      ['error AwsSolutions-S1 NagTest/Plain/Resource', 'error AwsSolutions-S10 NagTest/Plain/Resource'],
    );
  });

  it('leaves out the findings acknowledged on the resource or an ancestor', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'NagTest', { env: TEST_ENV });
    const bucket = new Bucket(stack, 'Plain');
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: 'Test of the helper.' });
    Validations.of(stack).acknowledge({ id: 'AwsSolutions-S10', reason: 'Test of the helper.' });

    // Act
    const findings = collectNagFindings(stack);

    // Assert
    expect(findings).toEqual([]);
  });
});
