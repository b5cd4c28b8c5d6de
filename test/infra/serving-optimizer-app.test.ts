import { describe, expect, it } from '@jest/globals';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { buildServingOptimizerApp } from '../../infra/serving-optimizer-app.js';
import { createTestApp, TEST_ENV } from './app.js';

describe('buildServingOptimizerApp', () => {
  it('synthesizes the ServingOptimizer stack with the cdk-nag checks passing', () => {
    // Prepare
    const app = createTestApp();
    buildServingOptimizerApp(app, TEST_ENV);

    // Act
    const assembly = app.synth();

    // Assert
    expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['ServingOptimizer']);
    expect(assembly.getStackByName('ServingOptimizer').environment).toMatchObject({
      account: '123456789012',
      region: 'us-east-1',
    });
  });

  it('fails synthesis when a resource breaks an AwsSolutions rule without acknowledgment', () => {
    // Prepare
    const app = createTestApp();
    const { stack } = buildServingOptimizerApp(app, TEST_ENV);
    new Bucket(stack, 'Unprotected');

    // Act
    const act = () => app.synth();

    // Assert
    expect(act).toThrow(/ServingOptimizer\/Unprotected\/Resource[\s\S]*AwsSolutions-S10/);
  });

  it('synthesizes an environment-agnostic stack when no account or region is given', () => {
    // Prepare
    const app = createTestApp();
    buildServingOptimizerApp(app);

    // Act
    const assembly = app.synth();

    // Assert
    expect(assembly.getStackByName('ServingOptimizer').environment).toMatchObject({
      account: 'unknown-account',
      region: 'unknown-region',
    });
  });
});
