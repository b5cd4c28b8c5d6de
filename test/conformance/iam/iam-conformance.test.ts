/**
 * The IAM evaluation of the conformance runs fails what IAM would refuse: a grant planted missing
 * from one role, a payload planted under a prefix no step may read. Each run is the synthesized
 * optimization workflow over the real adapters (aws-harness.ts), as in workflow-conformance.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, SAGEMAKER_ROLE_ARN, withUnmissableSla } from '../aws-harness.js';
import { ACCOUNT_ID, REGION } from '../fake-aws/sagemaker-service.js';
import { deployedPolicies, iamEvaluator, KNOWN_DENIALS } from './conformance-iam.js';
import { IamEvaluator } from './iam-evaluator.js';
import { marketHarness, planWithMarket } from '../support/market-plan.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const MODEL_URI = `s3://${ARTIFACTS_BUCKET}/models/cnn/model.tar.gz`;

function input(payloadUri: string): Record<string, unknown> {
  return withUnmissableSla({
    model: {
      artifactUri: MODEL_URI,
      framework: 'pytorch',
      frameworkVersion: '2.0',
      inputShape: { input0: [1, 3, 224, 224] },
    },
    payload: { uri: payloadUri, contentType: 'application/json' },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model: 'closed',
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 0.1,
      stopAtPlateau: false,
    },
    sla: { p95LatencyMs: 50 },
  });
}

async function run(payloadUri: string, runId: string): Promise<AwsHarness> {
  const harness = new AwsHarness();
  harness.s3.seed(MODEL_URI, gzipSync('model'));
  harness.s3.seed(payloadUri, '{"inputs":[[0]]}');
  await harness.runOptimization({ workflows, input: input(payloadUri), runId });
  return harness;
}

/** The template with the statements of one role's policy that grant `action` removed. */
function withoutGrant(
  template: Readonly<Record<string, unknown>>,
  policyPrefix: string,
  action: string,
): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(template)) as {
    Resources: Record<
      string,
      { Type: string; Properties: { PolicyDocument: { Statement: { Action: unknown }[] } } }
    >;
  };
  const [logicalId, policy] =
    Object.entries(copy.Resources).find(
      ([id, resource]) => resource.Type === 'AWS::IAM::Policy' && id.startsWith(policyPrefix),
    ) ?? [];
  if (logicalId === undefined || policy === undefined)
    throw new Error(`No policy ${policyPrefix}* in the template`);
  const statements = policy.Properties.PolicyDocument.Statement;
  policy.Properties.PolicyDocument.Statement = statements.filter(
    (statement) => ![statement.Action].flat().includes(action),
  );
  if (policy.Properties.PolicyDocument.Statement.length !== statements.length - 1) {
    throw new Error(`${logicalId}: expected one statement granting ${action}`);
  }
  return copy;
}

describe('the IAM evaluation of a conformance run', () => {
  it('passes a run whose every call the deployed policies allow', async () => {
    // Act
    const harness = await run(`s3://${ARTIFACTS_BUCKET}/models/cnn/payload.json`, 'iam-allowed');
    const verdict = await iamEvaluator(workflows).evaluate(harness.recorder.calls);

    // Assert
    expect(verdict).toEqual({ denied: [], known: [], unattributed: [] });
  });

  it('fails when one statement is removed from one role, naming the function, the action and the ARN', async () => {
    // Prepare: deploy-candidate's role loses its iam:PassRole statement.
    const harness = await run(`s3://${ARTIFACTS_BUCKET}/models/cnn/payload.json`, 'iam-missing-grant');
    const planted = new IamEvaluator(
      deployedPolicies(withoutGrant(workflows.template, 'DeployCandidateRoleDefaultPolicy', 'iam:PassRole')),
      { taskTokenStateMachine: workflows.asyncInference.logicalId, known: KNOWN_DENIALS },
    );

    // Act
    const verdict = await planted.evaluate(harness.recorder.calls);

    // Assert
    expect(verdict.denied).toEqual([
      `function deploy-candidate: iam:PassRole on ${SAGEMAKER_ROLE_ARN} with iam:PassedToService=sagemaker.amazonaws.com denied (implicit)`,
    ]);
  });

  it('fails when the payload is in a bucket no step may read', async () => {
    // Prepare: a prefix of the artifacts bucket outside the readable ones is refused at validation,
    // before any read; a bucket of the user's own is read, and the roles may not.
    const payloadUri = 's3://other-team-bucket/payloads/payload.json';

    // Act
    const harness = await run(payloadUri, 'iam-unreadable-payload');
    const verdict = await iamEvaluator(workflows).evaluate(harness.recorder.calls);

    // Assert
    expect(verdict.denied).toEqual([
      'function validate-and-plan: s3:GetObject on arn:aws:s3:::other-team-bucket/payloads/payload.json denied (implicit)',
      'function run-load-worker: s3:GetObject on arn:aws:s3:::other-team-bucket/payloads/payload.json denied (implicit)',
    ]);
  });

  it('names the resources in the fake account and Region, not the synthesis’s stand-ins', () => {
    // Act
    const policies = JSON.stringify(iamEvaluator(workflows).policiesOf('deploy-candidate'));

    // Assert
    expect(policies).toContain(`arn:aws:sagemaker:${REGION}:${ACCOUNT_ID}:endpoint/mso-*`);
    expect(policies).not.toMatch(/000000000000|local-1/);
  });
});

describe('the IAM evaluation of the market reads', () => {
  it('passes validate-and-plan’s Price List, EC2 and price-copy calls under its deployed policy', async () => {
    // Prepare
    const harness = marketHarness();
    await planWithMarket(harness, 'iam-market');

    // Act
    const verdict = await iamEvaluator(workflows).evaluate(harness.recorder.calls);

    // Assert
    expect(verdict).toEqual({ denied: [], known: [], unattributed: [] });
  });

  it('fails when validate-and-plan’s role lacks the market grant, naming each call IAM denies', async () => {
    // Prepare
    const harness = marketHarness();
    await planWithMarket(harness, 'iam-market-denied');
    const planted = new IamEvaluator(
      deployedPolicies(
        withoutGrant(workflows.template, 'ValidateAndPlanRoleDefaultPolicy', 'pricing:GetProducts'),
      ),
      { taskTokenStateMachine: workflows.asyncInference.logicalId, known: KNOWN_DENIALS },
    );

    // Act
    const verdict = await planted.evaluate(harness.recorder.calls);

    // Assert
    expect(verdict.denied).toEqual([
      'function validate-and-plan: pricing:GetProducts on * denied (implicit)',
      'function validate-and-plan: ec2:DescribeInstanceTypes on * denied (implicit)',
    ]);
  });
});
