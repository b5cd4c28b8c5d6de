import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ProjectFunctionProps } from '../../../infra/constructs/project-function.js';
import { ProjectFunction } from '../../../infra/constructs/project-function.js';
import { createTestApp, FIXTURE_LAMBDAS, FIXTURE_STEP, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { logicalIdOf } from '../policy-grants.js';

function buildFunction(props: Partial<ProjectFunctionProps> = {}) {
  const app = createTestApp();
  const stack = new Stack(app, 'FunctionTest', { env: TEST_ENV });
  const fn = new ProjectFunction(stack, 'Probe', {
    stepName: FIXTURE_STEP,
    entryDirectory: FIXTURE_LAMBDAS,
    ...props,
  });
  return { stack, fn, template: Template.fromStack(stack) };
}

function acknowledgedRuleIds(construct: { node: ProjectFunction['node'] }): string[] {
  return construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
    .map((id) => id.replace(/^annotation::/i, ''));
}

describe('ProjectFunction', () => {
  describe('with the defaults', () => {
    const { stack, fn, template } = buildFunction();

    it('runs Node.js 22 on arm64 with active X-Ray tracing and the default size', () => {
      // Assert
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 30,
      });
    });

    it('names its step in STEP_NAME and sets source maps and the Powertools variables', () => {
      // Assert
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            STEP_NAME: 'probe-step',
            NODE_OPTIONS: '--enable-source-maps',
            POWERTOOLS_SERVICE_NAME: 'model-serving-optimizer',
            POWERTOOLS_METRICS_NAMESPACE: 'ModelServingOptimizer',
            POWERTOOLS_LOG_LEVEL: 'INFO',
          },
        },
      });
      expect(fn.stepName).toBe('probe-step');
    });

    it('logs to its own log group kept for one month', () => {
      // Prepare
      const logGroupId = logicalIdOf(stack, fn.functionLogGroup);

      // Assert
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      template.hasResourceProperties('AWS::Lambda::Function', {
        LoggingConfig: { LogGroup: { Ref: logGroupId } },
      });
    });

    it('has a role for Lambda without managed policies, writing only to its log group and X-Ray', () => {
      // Prepare
      const logGroupId = logicalIdOf(stack, fn.functionLogGroup);

      // Assert
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [
            { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
          ],
        },
        ManagedPolicyArns: Match.absent(),
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            {
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Effect: 'Allow',
              Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
            },
            { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' },
          ],
        },
      });
    });

    it('acknowledges only the runtime rule on the function and only the X-Ray wildcard on its role', () => {
      // Assert
      expect(acknowledgedRuleIds(fn)).toEqual(['AwsSolutions-L1']);
      expect(acknowledgedRuleIds(fn.serviceRole)).toEqual(['AwsSolutions-IAM5[Resource::*]']);
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  it('applies the overrides of memory, timeout, log level, retention and service names', () => {
    // Act
    const { template } = buildFunction({
      memorySize: 1769,
      timeout: Duration.minutes(5),
      logLevel: 'DEBUG',
      logRetention: RetentionDays.ONE_WEEK,
      serviceName: 'load-tester',
      metricsNamespace: 'LoadTests',
      environment: { TABLE_NAME: 'tokens' },
    });

    // Assert
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1769,
      Timeout: 300,
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: 'tokens',
          STEP_NAME: 'probe-step',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
          POWERTOOLS_SERVICE_NAME: 'load-tester',
          POWERTOOLS_METRICS_NAMESPACE: 'LoadTests',
        }),
      },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('fails when the step has no entry file', () => {
    // Act
    const act = () => buildFunction({ stepName: 'missing-step' });

    // Assert
    expect(act).toThrow(/no entry file for the step "missing-step": expected .*missing-step\.ts/);
  });

  it('fails when the step name is not kebab-case', () => {
    // Act
    const act = () => buildFunction({ stepName: 'ProbeStep' });

    // Assert
    expect(act).toThrow(/got the step name "ProbeStep", expected kebab-case/);
  });

  it('fails when the environment tries to set STEP_NAME', () => {
    // Act
    const act = () => buildFunction({ environment: { STEP_NAME: 'other-step' } });

    // Assert
    expect(act).toThrow(/got environment variables STEP_NAME, expected none of/);
  });

  describe('bundling', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'project-function-'));
    afterAll(() => {
      rmSync(outdir, { recursive: true, force: true });
    });

    it('is skipped by the test app, which keeps the other tests fast', () => {
      // Prepare
      const skippedOutdir = join(outdir, 'skipped');
      const app = createTestApp({ outdir: skippedOutdir });
      const stack = new Stack(app, 'SkipTest', { env: TEST_ENV });
      new ProjectFunction(stack, 'Probe', { stepName: FIXTURE_STEP, entryDirectory: FIXTURE_LAMBDAS });

      // Act
      app.synth();

      // Assert
      expect(readdirSync(skippedOutdir).filter((name) => name.startsWith('asset.'))).toEqual([]);
    });

    it('builds a minified ESM bundle with a source map and a require shim, with the local esbuild', () => {
      // Prepare
      const bundledOutdir = join(outdir, 'bundled');
      const app = createTestApp({ bundle: true, outdir: bundledOutdir });
      const stack = new Stack(app, 'BundleTest', { env: TEST_ENV });
      new ProjectFunction(stack, 'Probe', { stepName: FIXTURE_STEP, entryDirectory: FIXTURE_LAMBDAS });

      // Act
      app.synth();

      // Assert
      const assetDirectories = readdirSync(bundledOutdir).filter((name) => name.startsWith('asset.'));
      expect(assetDirectories).toHaveLength(1);
      const assetDirectory = join(bundledOutdir, assetDirectories[0] ?? '');
      expect(readdirSync(assetDirectory).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      const bundle = readFileSync(join(assetDirectory, 'index.mjs'), 'utf8');
      expect(
        bundle.startsWith(
          "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
        ),
      ).toBe(true);
      expect(bundle).toMatch(/export\s*\{\s*\w+ as handler\s*\}/);
      expect(bundle).toContain('sourceMappingURL=index.mjs.map');
    });
  });
});
