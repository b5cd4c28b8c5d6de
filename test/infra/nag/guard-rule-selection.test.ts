import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { CfnTopic } from 'aws-cdk-lib/aws-sns';
import { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import {
  bundledControlTowerRules,
  bundledControlTowerRulesDirectory,
  type GuardRuleFile,
  resourceTypesNamed,
  rulesForTypes,
  templateResourceTypes,
} from '../../../infra/nag/guard-rule-selection.js';
import { createTestApp, TEST_ENV } from '../app.js';

/** cfn-guard runs as a child process over every bundled rule: seconds on a busy machine. */
const GUARD_TIMEOUT_MS = 120_000;

const scratch = mkdtempSync(join(tmpdir(), 'guard-rules-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function rule(path: string, ...types: string[]): GuardRuleFile {
  return { path, resourceTypes: new Set(types) };
}

describe('rulesForTypes', () => {
  it('runs a rule file that names a type of the template and leaves out one whose every type is absent', () => {
    // Prepare
    const rules = [
      rule('s3.guard', 'AWS::S3::Bucket'),
      rule('redshift.guard', 'AWS::Redshift::Cluster'),
      rule('mixed.guard', 'AWS::RDS::DBCluster', 'AWS::Lambda::Function'),
    ];

    // Act
    const selected = rulesForTypes(rules, new Set(['AWS::S3::Bucket', 'AWS::Lambda::Function']));

    // Assert
    expect(selected.map((r) => r.path)).toEqual(['s3.guard', 'mixed.guard']);
  });

  it('always runs a rule file that names no resource type', () => {
    // Act
    const selected = rulesForTypes([rule('any.guard')], new Set(['AWS::S3::Bucket']));

    // Assert
    expect(selected.map((r) => r.path)).toEqual(['any.guard']);
  });
});

describe('resourceTypesNamed', () => {
  it('reads every resource type a rule names, once each', () => {
    // Act
    const types = resourceTypesNamed(
      "let buckets = Resources.*[ Type == 'AWS::S3::Bucket' ]\n" +
        'rule check when %buckets !empty { %buckets.Properties exists }\n' +
        '# AWS::S3::Bucket again, and AWS::S3::BucketPolicy',
    );

    // Assert
    expect([...types]).toEqual(['AWS::S3::Bucket', 'AWS::S3::BucketPolicy']);
  });
});

describe('templateResourceTypes', () => {
  it('gathers the resource types of every template', () => {
    // Prepare
    const first = join(scratch, 'first.template.json');
    const second = join(scratch, 'second.template.json');
    writeFileSync(
      first,
      JSON.stringify({ Resources: { A: { Type: 'AWS::S3::Bucket' }, B: { Type: 'AWS::SNS::Topic' } } }),
    );
    writeFileSync(second, JSON.stringify({ Resources: { C: { Type: 'AWS::S3::Bucket' } }, Outputs: {} }));

    // Act
    const types = templateResourceTypes([first, second]);

    // Assert
    expect([...types]).toEqual(['AWS::S3::Bucket', 'AWS::SNS::Topic']);
  });
});

describe('bundledControlTowerRules', () => {
  it('lists the rule files the validator runs by default, each with the types it names', () => {
    // Act
    const rules = bundledControlTowerRules();

    // Assert
    expect(rules.length).toBeGreaterThan(200);
    expect(rules.every((r) => r.path.startsWith(bundledControlTowerRulesDirectory()))).toBe(true);
    const bucketEncryption = rules.find((r) => r.path.endsWith('/s3/ct-s3-pr-10.guard'));
    expect(bucketEncryption?.resourceTypes).toEqual(new Set(['AWS::S3::Bucket']));
  });

  it(
    'finds, with the rules selected for a template, exactly what every bundled rule finds',
    () => {
      // Prepare: plain resources of four types, each breaking some Control Tower rules.
      const app = createTestApp();
      const stack = new Stack(app, 'Selection', { env: TEST_ENV });
      new CfnBucket(stack, 'Bucket');
      new CfnQueue(stack, 'Queue');
      new CfnTopic(stack, 'Topic');
      new CfnFunction(stack, 'Function', {
        code: { zipFile: 'exports.handler = async () => 1;' },
        role: 'arn:aws:iam::123456789012:role/function',
        handler: 'index.handler',
        runtime: 'nodejs22.x',
      });
      const templatePaths = [app.synth().getStackByName('Selection').templateFullPath];
      const selected = rulesForTypes(bundledControlTowerRules(), templateResourceTypes(templatePaths));
      const findings = (validator: CfnGuardValidator) =>
        validator
          .validate({ templatePaths, appConstruct: app })
          .violations.map(
            (v) => `${v.ruleName} ${v.violatingResources.map((r) => r.resourceLogicalId).join(',')}`,
          )
          .sort();

      // Act
      const everyRule = findings(new CfnGuardValidator());
      const selectedRules = findings(
        new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: selected.map((r) => r.path) }),
      );

      // Assert
      expect(selected.length).toBeLessThan(bundledControlTowerRules().length / 2);
      expect(everyRule.length).toBeGreaterThan(0);
      expect(selectedRules).toEqual(everyRule);
    },
    GUARD_TIMEOUT_MS,
  );
});
