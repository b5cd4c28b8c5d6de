import { describe, expect, it } from '@jest/globals';
import { Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import {
  acknowledgeGuardRule,
  acknowledgeNagRule,
  acknowledgeWildcardResource,
  flattenCfnReference,
} from '../../../infra/nag/acknowledge.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { logicalIdOf } from '../policy-grants.js';

function acknowledgedIds(stack: Stack): string[] {
  return stack.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
    .map((id) => id.replace(/^annotation::/i, ''));
}

describe('flattenCfnReference', () => {
  it('writes an object ARN under a prefix the way cdk-nag prints it', () => {
    // Act
    const flat = flattenCfnReference({
      'Fn::Join': ['', [{ 'Fn::GetAtt': ['Bucket83908E77', 'Arn'] }, '/runs/*']],
    });

    // Assert
    expect(flat).toBe('<Bucket83908E77.Arn>/runs/*');
  });

  it('writes references and pseudo parameters in angle brackets', () => {
    // Act
    const flat = flattenCfnReference({
      'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, 'logs', '${AWS::Region}']],
    });

    // Assert
    expect(flat).toBe('arn:<AWS::Partition>:logs:<AWS::Region>');
  });

  it('keeps a plain string as it is', () => {
    // Act
    const flat = flattenCfnReference('arn:aws:ecr:*:*:repository/*');

    // Assert
    expect(flat).toBe('arn:aws:ecr:*:*:repository/*');
  });
});

describe('acknowledgeWildcardResource', () => {
  it('acknowledges the IAM5 finding named after the resolved resource', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'AckTest', { env: TEST_ENV });
    const bucket = new Bucket(stack, 'Bucket');
    const bucketId = logicalIdOf(stack, bucket);

    // Act
    acknowledgeWildcardResource(
      stack,
      bucket.arnForObjects('models/*'),
      'Objects are created per run under models/.',
    );

    // Assert
    expect(acknowledgedIds(stack)).toEqual([`AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/models/*]`]);
  });
});

describe('acknowledgeNagRule', () => {
  it('fails when the reason does not explain the decision', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'AckTest', { env: TEST_ENV });

    // Act
    const act = () => {
      acknowledgeNagRule(stack, 'AwsSolutions-S1', 'not needed');
    };

    // Assert
    expect(act).toThrow(/got the reason "not needed", expected a sentence of at least 30 characters/);
  });
});

describe('acknowledgeGuardRule', () => {
  it('acknowledges the Guard rule under the validator’s name, as synth’s report asks', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'AckTest', { env: TEST_ENV });

    // Act
    acknowledgeGuardRule(stack, 'sqs_dlq_check', 'This queue is itself a dead-letter queue.');

    // Assert
    expect(acknowledgedIds(stack)).toEqual(['cdk-validator-cfnguard::sqs_dlq_check']);
  });

  it('fails when the reason does not explain the decision', () => {
    // Prepare
    const stack = new Stack(createTestApp(), 'AckTest', { env: TEST_ENV });

    // Act
    const act = () => {
      acknowledgeGuardRule(stack, 'sqs_dlq_check', 'ok');
    };

    // Assert
    expect(act).toThrow(
      'CloudFormation Guard acknowledgment of cdk-validator-cfnguard::sqs_dlq_check on AckTest: got the reason "ok"',
    );
  });
});
