import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { RunScheduleSettings, RunSchedulesProps } from '../../../infra/constructs/run-schedules.js';
import { RunSchedules, withArtifactsBucket } from '../../../infra/constructs/run-schedules.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf, propertiesOf, SCHEDULER_TRUST_POLICY } from '../policy-grants.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');
const CPU_SWEEP: unknown = JSON.parse(readFileSync(join(EXAMPLES, 'cpu-sweep.json'), 'utf8'));
const ASYNC_INPUT = {
  name: 'Nightly batch',
  endpointName: 'mso-batch',
  inputPrefix: 's3://mso-artifacts/inputs/nightly/',
};

const NIGHTLY: RunScheduleSettings = {
  name: 'nightly-cpu-sweep',
  workflow: 'optimization',
  expression: 'cron(0 2 ? * MON-FRI *)',
  timeZone: 'Europe/Paris',
  input: CPU_SWEEP,
};
const BATCH: RunScheduleSettings = {
  name: 'hourly-batch',
  workflow: 'async-inference',
  expression: 'rate(1 hour)',
  input: ASYNC_INPUT,
  enabled: false,
  description: 'Hourly batch of the inputs under inputs/nightly/',
};

/** The schedules alone, on a stack without the workflows, against imported state machines. */
function buildSchedules(props: Partial<RunSchedulesProps> = {}) {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'RunSchedulesTest', {
    env: TEST_ENV,
    includeWorkflows: false,
  });
  const optimization = StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN);
  const asyncInference = StateMachine.fromStateMachineArn(stack, 'AsyncInference', ASYNC_ARN);
  const schedules = new RunSchedules(stack, 'Schedules', {
    optimization,
    asyncInference,
    schedules: [NIGHTLY, BATCH],
    ...props,
  });
  return { stack, schedules };
}

function scheduleOf(schedules: RunSchedules, name: string) {
  const schedule = schedules.schedules.get(name);
  if (schedule === undefined) throw new Error(`no schedule ${name}`);
  return schedule;
}

function roleOf(schedules: RunSchedules, workflow: 'optimization' | 'async-inference') {
  const role = schedules.roles.get(workflow);
  if (role === undefined) throw new Error(`no role for ${workflow}`);
  return role;
}

describe('RunSchedules', () => {
  describe('with an optimization and an async schedule', () => {
    const { stack, schedules } = buildSchedules();
    const template = Template.fromStack(stack);
    const queue = schedules.deadLetterQueue;
    if (queue === undefined) throw new Error('expected a dead-letter queue');
    const queueArn = { 'Fn::GetAtt': [logicalIdOf(stack, queue), 'Arn'] };

    it('starts the optimization state machine with the run input, on a cron in its time zone, no flexible window', () => {
      // Act
      const schedule = propertiesOf(template, logicalIdOf(stack, scheduleOf(schedules, NIGHTLY.name)));

      // Assert
      expect(schedule).toEqual({
        Description: 'nightly-cpu-sweep: optimization run on cron(0 2 ? * MON-FRI *)',
        ScheduleExpression: 'cron(0 2 ? * MON-FRI *)',
        ScheduleExpressionTimezone: 'Europe/Paris',
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
        Target: {
          Arn: OPTIMIZATION_ARN,
          RoleArn: { 'Fn::GetAtt': [logicalIdOf(stack, roleOf(schedules, 'optimization')), 'Arn'] },
          Input: JSON.stringify(CPU_SWEEP),
          DeadLetterConfig: { Arn: queueArn },
          RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 },
        },
      });
    });

    it('starts the async state machine on a rate in UTC, disabled, with its description', () => {
      // Act
      const schedule = propertiesOf(template, logicalIdOf(stack, scheduleOf(schedules, BATCH.name)));

      // Assert
      expect(schedule).toMatchObject({
        Description: 'Hourly batch of the inputs under inputs/nightly/',
        ScheduleExpression: 'rate(1 hour)',
        ScheduleExpressionTimezone: 'Etc/UTC',
        State: 'DISABLED',
        Target: {
          Arn: ASYNC_ARN,
          RoleArn: { 'Fn::GetAtt': [logicalIdOf(stack, roleOf(schedules, 'async-inference')), 'Arn'] },
          Input: JSON.stringify(ASYNC_INPUT),
        },
      });
    });

    it('gives each workflow a role that only Scheduler’s default group assumes and that starts that state machine only', () => {
      // Prepare
      const roleId = logicalIdOf(stack, roleOf(schedules, 'optimization'));

      // Act
      const trust = propertiesOf(template, roleId).AssumeRolePolicyDocument;
      const grants = grantsOf(template, roleId);

      // Assert
      expect(trust).toEqual(SCHEDULER_TRUST_POLICY);
      expect(grants).toEqual([
        `Allow sqs:SendMessage on <${logicalIdOf(stack, queue)}.Arn>`,
        `Allow states:StartExecution on ${OPTIMIZATION_ARN}`,
      ]);
      expect(grantsOf(template, logicalIdOf(stack, roleOf(schedules, 'async-inference')))).toEqual([
        `Allow sqs:SendMessage on <${logicalIdOf(stack, queue)}.Arn>`,
        `Allow states:StartExecution on ${ASYNC_ARN}`,
      ]);
    });

    it('keeps occurrences that could not start in an SSE-encrypted, TLS-only queue', () => {
      // Act
      const properties = propertiesOf(template, logicalIdOf(stack, queue));

      // Assert
      expect(properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalIdOf(stack, queue) }],
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: queueArn,
            },
          ],
        },
      });
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  it('sends to the dead-letter queue it is given instead of creating one', () => {
    // Prepare
    const app = createTestApp();
    const stack = new ServingOptimizerStack(app, 'GivenQueue', { env: TEST_ENV, includeWorkflows: false });
    const given = new Queue(stack, 'SafetyNetQueue');

    // Act
    const schedules = new RunSchedules(stack, 'Schedules', {
      optimization: StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN),
      schedules: [NIGHTLY],
      deadLetterQueue: given,
    });

    // Assert
    expect(schedules.deadLetterQueue).toBe(given);
    expect(schedules.node.tryFindChild('DeadLetters')).toBeUndefined();
  });

  it('creates nothing without schedules', () => {
    // Act
    const { schedules } = buildSchedules({ schedules: [] });

    // Assert
    expect([schedules.schedules.size, schedules.roles.size, schedules.deadLetterQueue]).toEqual([
      0,
      0,
      undefined,
    ]);
  });

  it('fails when a schedule’s input is not a valid run input, naming the schedule and the field', () => {
    // Prepare
    const bad = {
      ...NIGHTLY,
      input: { ...(CPU_SWEEP as object), candidates: [{ instanceType: 'c5.xlarge' }] },
    };

    // Act
    const act = () => buildSchedules({ schedules: [bad] });

    // Assert
    expect(act).toThrow(
      'RunSchedules "nightly-cpu-sweep" (optimization).input: Invalid run input: candidates[0].instanceType: ' +
        'got "c5.xlarge", expected an instance type such as ml.c5.xlarge',
    );
  });

  it('fails when a schedule’s input points at a local file, which a run on AWS cannot read', () => {
    // Prepare
    const local = {
      ...NIGHTLY,
      input: { ...(CPU_SWEEP as object), payload: { uri: 'file:///home/me/payload.json' } },
    };

    // Act
    const act = () => buildSchedules({ schedules: [local] });

    // Assert
    expect(act).toThrow(
      'RunSchedules "nightly-cpu-sweep" (optimization).input: Invalid run input: payload.uri: got ' +
        '"file:///home/me/payload.json", expected an s3:// URI (file:// works in local mode only, and this run starts on AWS)',
    );
  });

  it('fails when an async schedule’s input is not a valid async run input, naming the field', () => {
    // Prepare
    const bad = { ...BATCH, input: { endpointName: 'mso-batch' } };

    // Act
    const act = () => buildSchedules({ schedules: [bad] });

    // Assert
    expect(act).toThrow(
      /RunSchedules "hourly-batch" \(async-inference\)\.input: Invalid run input: inputs: got nothing/,
    );
  });

  it('fails when a schedule asks for the async workflow and the stack has none', () => {
    // Prepare
    const app = createTestApp();
    const stack = new ServingOptimizerStack(app, 'NoAsync', { env: TEST_ENV, includeWorkflows: false });

    // Act
    const act = () =>
      new RunSchedules(stack, 'Schedules', {
        optimization: StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN),
        schedules: [BATCH],
      });

    // Assert
    expect(act).toThrow(
      'RunSchedules "hourly-batch".workflow: got "async-inference", but the stack has no async-inference state machine',
    );
  });

  it('fails when a time zone is not an IANA name', () => {
    // Act
    const act = () => buildSchedules({ schedules: [{ ...NIGHTLY, timeZone: 'Europe/Pari' }] });

    // Assert
    expect(act).toThrow(
      'RunSchedules "nightly-cpu-sweep".timeZone: got "Europe/Pari", expected an IANA time zone name such as "Europe/Paris"',
    );
  });

  it('fails when an expression is neither rate(...) nor a six-field cron(...)', () => {
    // Act
    const act = () => buildSchedules({ schedules: [{ ...NIGHTLY, expression: 'cron(0 2 * * *)' }] });

    // Assert
    expect(act).toThrow(
      /RunSchedules "nightly-cpu-sweep"\.schedule: got "cron\(0 2 \* \* \*\)", expected an EventBridge Scheduler expression/,
    );
  });

  it('fails when two schedules share a name', () => {
    // Act
    const act = () => buildSchedules({ schedules: [NIGHTLY, { ...NIGHTLY }] });

    // Assert
    expect(act).toThrow(
      'RunSchedules schedules[1].name: got "nightly-cpu-sweep" twice, expected a name no other schedule uses',
    );
  });

  it('fails when a name is not usable as an id', () => {
    // Act
    const act = () => buildSchedules({ schedules: [{ ...NIGHTLY, name: 'nightly cpu' }] });

    // Assert
    expect(act).toThrow(
      'RunSchedules schedules[0].name: got "nightly cpu", expected 1 to 64 letters, digits, "-", "_" or "." (EventBridge Scheduler names)',
    );
  });
});

describe('a schedule of an example, on the stack that deploys it', () => {
  it('starts its runs on the stack’s artifacts bucket, not the examples’ placeholder', () => {
    // Prepare: the example names s3://your-artifacts-bucket/…, as it does in examples/.
    const app = createTestApp();
    const stack = new ServingOptimizerStack(app, 'ScheduledExample', {
      env: TEST_ENV,
      includeWorkflows: false,
    });
    const optimization = StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN);
    const schedules = new RunSchedules(stack, 'Schedules', {
      optimization,
      schedules: [NIGHTLY],
      artifactsBucketName: stack.artifactsBucket.bucketName,
    });

    // Act
    const input = stack.resolve(
      propertiesOf(Template.fromStack(stack), logicalIdOf(stack, scheduleOf(schedules, NIGHTLY.name))),
    ) as { Target: { Input: unknown } };

    // Assert: the input is joined at deploy time with the bucket's name
    const rendered = JSON.stringify(input.Target.Input);
    expect(rendered).not.toContain('your-artifacts-bucket');
    expect(rendered).toContain(`{"Ref":"${logicalIdOf(stack, stack.artifactsBucket)}"}`);
    expect(rendered).toContain('/models/resnet50/model.pt');
  });
});

describe('withArtifactsBucket', () => {
  it('replaces the placeholder bucket of every s3:// URI and leaves everything else as written', () => {
    // Act
    const input = withArtifactsBucket(
      {
        model: { artifactUri: 's3://your-artifacts-bucket/models/m/model.tar.gz' },
        inputs: ['s3://your-artifacts-bucket/inputs/a.json', 's3://other-bucket/inputs/b.json'],
        name: 'your-artifacts-bucket is a placeholder',
        count: 3,
      },
      'mso-artifacts-123',
    );

    // Assert
    expect(input).toEqual({
      model: { artifactUri: 's3://mso-artifacts-123/models/m/model.tar.gz' },
      inputs: ['s3://mso-artifacts-123/inputs/a.json', 's3://other-bucket/inputs/b.json'],
      name: 'your-artifacts-bucket is a placeholder',
      count: 3,
    });
  });
});
