import { describe, expect, it } from '@jest/globals';
import type { PolicyCheck, PolicySimulation } from '../../../core/async/ports.js';
import { validateAsyncRun, type ValidateAsyncRunDeps } from '../../../core/steps/async/validate-async-run.js';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { asyncEndpointDescription, ScriptedSageMaker } from './support/async-fakes.js';

const REUSED = 'team-async-endpoint';
const ROLE = 'arn:aws:iam::123456789012:role/team-endpoint';
const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const TOPICS = {
  successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
};
const INPUT = {
  endpointName: REUSED,
  inputs: ['s3://mso-artifacts/inputs/a/0001.json', 's3://mso-artifacts/inputs/a/0002.json'],
};

/** A simulator that answers `answer` and records what it was asked. */
function simulator(answer: PolicySimulation): {
  readonly asked: { principalArn: string; checks: readonly PolicyCheck[] }[];
  simulate(principalArn: string, checks: readonly PolicyCheck[]): Promise<PolicySimulation>;
} {
  const asked: { principalArn: string; checks: readonly PolicyCheck[] }[] = [];
  return {
    asked,
    simulate: (principalArn, checks) => {
      asked.push({ principalArn, checks });
      return Promise.resolve(answer);
    },
  };
}

function deps(simulate: ReturnType<typeof simulator>): ValidateAsyncRunDeps {
  return {
    // The inputs exist: the first state checks them before the role (core/planning/object-checks.ts).
    store: new MemoryObjectStore().seed(INPUT.inputs[0] ?? '', '{}').seed(INPUT.inputs[1] ?? '', '{}'),
    host: new ScriptedSageMaker().answerDescribe(REUSED, asyncEndpointDescription(REUSED)),
    artifactsBucket: 'mso-artifacts',
    region: 'us-east-1',
    allowFileUris: false,
    notificationTopics: TOPICS,
    reusedEndpointRole: {
      roles: { executionRoleOf: () => Promise.resolve(ROLE) },
      simulator: simulate,
      topicsKeyArn: KEY,
    },
    waitTimeoutSeconds: 26_100,
    pollSeconds: 30,
    nowEpochMs: () => 0,
    logger: silentLogger,
  };
}

describe('validateAsyncRun: the execution role of a reused endpoint', () => {
  it('asks IAM about publishing, the topics key, reading the inputs and writing the output', async () => {
    // Prepare
    const allowing = simulator({ status: 'simulated', denied: [] });

    // Act
    await validateAsyncRun({ runId: 'run-1', input: INPUT }, deps(allowing));

    // Assert
    expect(allowing.asked).toEqual([
      {
        principalArn: ROLE,
        checks: [
          { action: 'sns:Publish', resourceArns: [TOPICS.successTopicArn, TOPICS.errorTopicArn] },
          {
            action: 'kms:GenerateDataKey',
            resourceArns: [KEY],
            context: { 'kms:ViaService': 'sns.us-east-1.amazonaws.com' },
          },
          {
            action: 'kms:Decrypt',
            resourceArns: [KEY],
            context: { 'kms:ViaService': 'sns.us-east-1.amazonaws.com' },
          },
          { action: 's3:GetObject', resourceArns: ['arn:aws:s3:::mso-artifacts/inputs/a/0001.json'] },
          {
            action: 's3:PutObject',
            resourceArns: ['arn:aws:s3:::mso-artifacts/runs/shared/async/output/mso-permission-check.out'],
          },
        ],
      },
    ]);
  });

  it('refuses a role that may not publish to the topics, naming the denials and the statement to add', async () => {
    // Prepare
    const denying = simulator({
      status: 'simulated',
      denied: [
        { action: 'sns:Publish', resourceArn: TOPICS.successTopicArn, decision: 'implicitDeny' },
        { action: 'sns:Publish', resourceArn: TOPICS.errorTopicArn, decision: 'implicitDeny' },
        { action: 'kms:GenerateDataKey', resourceArn: KEY, decision: 'implicitDeny' },
      ],
    });

    // Act
    const error = await validateAsyncRun({ runId: 'run-1', input: INPUT }, deps(denying)).catch(
      (e: unknown) => e,
    );

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'endpointName',
        given: `"${REUSED}" (its model's execution role ${ROLE} is denied sns:Publish on ${TOPICS.successTopicArn} (implicitDeny), sns:Publish on ${TOPICS.errorTopicArn} (implicitDeny), kms:GenerateDataKey on ${KEY} (implicitDeny))`,
        expected: `an endpoint whose role may read the inputs, write the results and notify this stack's topics: add to ${ROLE} the statement(s) {"Effect":"Allow","Action":["sns:Publish"],"Resource":["${TOPICS.successTopicArn}","${TOPICS.errorTopicArn}"]} {"Effect":"Allow","Action":["kms:GenerateDataKey"],"Resource":["${KEY}"],"Condition":{"StringEquals":{"kms:ViaService":"sns.us-east-1.amazonaws.com"}}}`,
      },
    ]);
  });

  it('plans the run with a warning when the simulation itself is denied', async () => {
    // Prepare
    const reason = `iam:SimulatePrincipalPolicy on ${ROLE} failed: AccessDenied: not authorized`;
    const unavailable = simulator({ status: 'unavailable', reason });

    // Act
    const { plan } = await validateAsyncRun({ runId: 'run-1', input: INPUT }, deps(unavailable));

    // Assert
    expect(plan.warnings).toEqual([
      `The permissions of endpoint ${REUSED}'s execution role were not checked (${reason}): if it cannot publish to this stack's topics, its inputs will wait until the wait's timeout. See docs/async.md, "IAM for reused endpoints".`,
    ]);
  });
});
