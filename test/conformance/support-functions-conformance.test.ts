/**
 * The support Lambdas' AWS requests, checked as the workflows' are: the run API (start, list,
 * describe, events, stop), the run summary, the failed-run clean-up, the janitor and the
 * model-approval trigger, each its core over the real adapters of its entry and the harness's
 * validating fakes (support/run-functions.ts), the runs it starts run by their synthesized state
 * machines. Every request must be one the service accepts and IAM allows the function sending it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseApprovedModelRunTemplate } from '../../core/planning/approved-model-template-check.js';
import { checkedApp } from '../support/checked-apps.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import {
  ARTIFACTS_BUCKET,
  AwsHarness,
  NOTIFICATION_TOPICS,
  SAGEMAKER_ROLE_ARN,
  STATE_MACHINE_ARNS,
} from './aws-harness.js';
import {
  addDeployedExecutionRole,
  deployedPolicies,
  iamEvaluator,
  KNOWN_DENIALS,
} from './iam/conformance-iam.js';
import { IamEvaluator } from './iam/iam-evaluator.js';
import { REPO_ROOT } from './constraints/project-operations.js';
import { ConformanceFunctions, ONE_CANDIDATE_INPUT, seedObjectsOf } from './support/run-functions.js';

let workflows: SynthesizedWorkflows;
let iam: IamEvaluator;

beforeAll(() => {
  workflows = synthesizedWorkflows();
  iam = iamEvaluator(workflows);
}, 120_000);

/** What the services refused and what IAM would deny, one line each; none for a conforming run. */
async function findings(harness: AwsHarness): Promise<string[]> {
  const verdict = await iam.evaluate(harness.recorder.calls);
  return [
    ...harness.recorder.violationLines(),
    ...verdict.denied,
    ...verdict.unattributed.map((call) => `${call}: sent outside any function`),
  ];
}

const executionArnOf = (runId: string, workflow: keyof typeof STATE_MACHINE_ARNS = 'optimization'): string =>
  `${STATE_MACHINE_ARNS[workflow].replace(':stateMachine:', ':execution:')}:${runId}`;

describe('the run API over Step Functions', () => {
  it('starts a run, runs it, then describes, lists and reports its events', async () => {
    // Prepare
    const harness = new AwsHarness();
    seedObjectsOf(harness, ONE_CANDIDATE_INPUT);
    const functions = new ConformanceFunctions(harness);
    const body = { runId: 'api-optimization', input: ONE_CANDIDATE_INPUT };

    // Act
    const started = await functions.startRun('optimization', body);
    const startedAgain = await functions.startRun('optimization', body);
    const result = await functions.runExecution(workflows, executionArnOf('api-optimization'));
    const described = await functions.describeRun('optimization', 'api-optimization');
    const listed = await functions.listRuns('optimization', { status: 'SUCCEEDED' });
    const events = await functions.runEvents('optimization', 'api-optimization');
    const reused = await functions.startRun('optimization', body);

    // Assert
    expect(started).toMatchObject({
      statusCode: 200,
      body: { runId: 'api-optimization', executionArn: executionArnOf('api-optimization') },
    });
    expect(startedAgain).toEqual(started);
    expect(result.status).toBe('SUCCEEDED');
    expect(described).toMatchObject({
      statusCode: 200,
      body: { status: 'SUCCEEDED', outcome: 'recommended' },
    });
    expect(listed).toMatchObject({
      statusCode: 200,
      body: { runs: [{ runId: 'api-optimization' }], truncated: false },
    });
    expect((events.body as { events: unknown[] }).events).toContainEqual(
      expect.objectContaining({ type: 'TaskStateEntered', state: 'Validate and plan' }),
    );
    expect(reused).toMatchObject({ statusCode: 409, body: { error: 'RunAlreadyExists' } });
    // Planning read the candidate's quota from Service Quotas, as its Lambda does.
    expect(harness.recorder.calls.filter((call) => call.client === 'ServiceQuotasClient')).toContainEqual(
      expect.objectContaining({ caller: 'validate-and-plan', command: 'ListServiceQuotasCommand' }),
    );
    expect(await findings(harness)).toEqual([]);
  });

  it('stops a running run, and the failed-run clean-up and the run summary handle its end', async () => {
    // Prepare
    const harness = new AwsHarness();
    const functions = new ConformanceFunctions(harness);
    await functions.startRun('optimization', { runId: 'api-stopped', input: ONE_CANDIDATE_INPUT });
    const change = {
      executionArn: executionArnOf('api-stopped'),
      stateMachineArn: STATE_MACHINE_ARNS.optimization,
      name: 'api-stopped',
      status: 'ABORTED',
    };

    // Act
    const stopped = await functions.stopRun('optimization', 'api-stopped');
    const described = await functions.describeRun('optimization', 'api-stopped');
    const cleanedUp = await functions.cleanUpFailedRun(change);
    const notified = await functions.notifyRunSummary(change);
    const swept = await functions.janitor(Date.UTC(2026, 0, 10));

    // Assert
    expect(stopped.statusCode).toBe(200);
    expect(harness.recorder.inputsOf('StopExecutionCommand')).toEqual([
      expect.objectContaining({ executionArn: executionArnOf('api-stopped'), error: 'RunStopped' }),
    ]);
    expect(described).toMatchObject({ statusCode: 200, body: { status: 'ABORTED' } });
    expect(cleanedUp).toMatchObject({ outcome: 'cleaned-up', status: 'ABORTED' });
    expect(notified).toMatchObject({ outcome: 'published', status: 'ABORTED' });
    expect(harness.sns.published).toEqual([
      expect.objectContaining({
        subject: 'Optimization run api-stopped aborted: RunStopped',
        attributes: { status: 'ABORTED', workflow: 'optimization', outcome: 'aborted' },
      }),
    ]);
    expect(swept.notDeleted).toBe(0);
    expect(await findings(harness)).toEqual([]);
  });

  it('starts an async run on a reused endpoint whose role the policy simulator checks', async () => {
    // Prepare
    const harness = new AwsHarness();
    addDeployedExecutionRole(harness.iam, workflows);
    const endpointName = 'my-async-endpoint';
    const inputs = [1, 2].map((index) => `s3://${ARTIFACTS_BUCKET}/inputs/video-000${index}.mp4`);
    for (const uri of inputs) harness.s3.seed(uri, 'video');
    harness.sagemaker.addExistingEndpoint({
      endpointName,
      instanceType: 'ml.g5.xlarge',
      instanceCount: 1,
      executionRoleArn: SAGEMAKER_ROLE_ARN,
      asyncInference: {
        OutputConfig: {
          S3OutputPath: `s3://${ARTIFACTS_BUCKET}/runs/reused/output/`,
          S3FailurePath: `s3://${ARTIFACTS_BUCKET}/runs/reused/failures/`,
          NotificationConfig: {
            SuccessTopic: NOTIFICATION_TOPICS.successTopicArn,
            ErrorTopic: NOTIFICATION_TOPICS.errorTopicArn,
          },
        },
      },
    });
    const functions = new ConformanceFunctions(harness);
    const input = {
      endpointName,
      inputs,
      contentType: 'video/mp4',
      maxConcurrency: 2,
      invocationTimeoutSeconds: 3600,
      requestTtlSeconds: 3600,
    };

    // Act
    const started = await functions.startRun('async-inference', { runId: 'api-async', input });
    const result = await functions.runExecution(workflows, executionArnOf('api-async', 'async-inference'));
    const change = {
      executionArn: executionArnOf('api-async', 'async-inference'),
      stateMachineArn: STATE_MACHINE_ARNS['async-inference'],
      name: 'api-async',
      status: result.status,
    };
    const notified = await functions.notifyRunSummary(change);

    // Assert
    expect(started.statusCode).toBe(200);
    expect(result.status).toBe('SUCCEEDED');
    expect(notified).toMatchObject({ outcome: 'published', status: 'SUCCEEDED' });
    expect(harness.recorder.inputsOf('SimulatePrincipalPolicyCommand')).toEqual(
      ['sns:Publish', 'kms:GenerateDataKey', 'kms:Decrypt', 's3:GetObject', 's3:PutObject'].map((action) =>
        expect.objectContaining({ PolicySourceArn: SAGEMAKER_ROLE_ARN, ActionNames: [action] }),
      ),
    );
    expect(harness.recorder.inputsOf('InvokeEndpointAsyncCommand')).toHaveLength(2);
    expect(await findings(harness)).toEqual([]);
  });
});

/**
 * The model-approval trigger as `optimizer.config.example.json` deploys it: the group it watches
 * and the template its runs start from.
 */
const EXAMPLE_CONFIG = JSON.parse(readFileSync(join(REPO_ROOT, 'optimizer.config.example.json'), 'utf8')) as {
  modelApproval: { modelPackageGroups: string[]; template: unknown };
};
const [APPROVAL_GROUP = ''] = EXAMPLE_CONFIG.modelApproval.modelPackageGroups;
const APPROVAL_TEMPLATE = EXAMPLE_CONFIG.modelApproval.template;

/** An approved version of the group, as SageMaker sends it to EventBridge (SageMaker developer guide). */
function approvedVersion(version: number): Record<string, unknown> {
  const packageArn = `arn:aws:sagemaker:us-east-1:123456789012:model-package/${APPROVAL_GROUP}/${version}`;
  return {
    version: '0',
    id: 'c800a495-b000-072c-7392-c683e89c96a8',
    'detail-type': 'SageMaker Model Package State Change',
    source: 'aws.sagemaker',
    account: '123456789012',
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [packageArn],
    detail: {
      ModelPackageName: `${APPROVAL_GROUP}/${version}`,
      ModelPackageGroupName: APPROVAL_GROUP,
      ModelPackageVersion: version,
      ModelPackageArn: packageArn,
      CreationTime: 1_767_225_600_000,
      InferenceSpecification: {
        Containers: [
          {
            Image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0-cpu-py310',
            ModelDataUrl: `s3://${ARTIFACTS_BUCKET}/models/${APPROVAL_GROUP}/${version}/model.tar.gz`,
            Framework: 'PYTORCH',
            FrameworkVersion: '2.0',
          },
        ],
      },
      ModelApprovalStatus: 'Approved',
      ModelPackageStatus: 'Completed',
    },
  };
}

describe('the model-approval trigger over Step Functions', () => {
  let approvalIam: IamEvaluator;

  beforeAll(() => {
    // The stack of that file, whose trigger Lambda the default synthesis leaves out, as jest's
    // global set-up synthesized it with every check (test/support/checked-apps.ts).
    const deployed = checkedApp('configExample');
    approvalIam = new IamEvaluator(deployedPolicies(deployed.template, deployed.environment), {
      taskTokenStateMachine: workflows.asyncInference.logicalId,
      known: KNOWN_DENIALS,
    });
  }, 120_000);

  it('starts the approved version’s run once (a repeated event is the same execution), each call valid and allowed', async () => {
    // Prepare
    const harness = new AwsHarness();
    const functions = new ConformanceFunctions(harness);
    const template = parseApprovedModelRunTemplate(APPROVAL_TEMPLATE);

    // Act
    const first = await functions.startApprovedModelRun(template, approvedVersion(3));
    const again = await functions.startApprovedModelRun(template, approvedVersion(3));
    const verdict = await approvalIam.evaluate(harness.recorder.calls);

    // Assert
    expect(first).toMatchObject({ outcome: 'started' });
    // StartExecution is idempotent while the run is RUNNING with the same input.
    expect(again).toEqual(first);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(verdict).toEqual({ denied: [], known: [], unattributed: [] });
  });
});
