import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { cleanUpFailedRun } from '../../../core/operations/clean-up-failed-run.js';
import { CleanUpIncompleteError, ErrorNames, TransientServiceError } from '../../../core/contracts/errors.js';
import { resourceName, runTags } from '../../../core/contracts/names.js';
import { SfnExecutionDescriber } from '../../../lambdas/adapters/sfn-execution-describer.js';
import { FakeSageMaker } from '../../support/fake-sagemaker.js';
import { FakeStepFunctions } from '../../support/fake-step-functions.js';
import { silentLogger } from '../../support/memory-object-store.js';

const RUN_ID = 'nightly-2026-01-10';
const OTHER_RUN_ID = 'nightly-2026-01-11';
const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:OptimizationWorkflow';

/** The event as Step Functions sends it to EventBridge (Step Functions developer guide example). */
function statusChange(status: string, name = RUN_ID) {
  return {
    version: '0',
    id: '315c1398-40ff-a850-213b-158f73e60175',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: '2026-01-10T19:42:21Z',
    region: 'us-east-1',
    resources: [`arn:aws:states:us-east-1:123456789012:execution:OptimizationWorkflow:${name}`],
    detail: {
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:OptimizationWorkflow:${name}`,
      stateMachineArn: STATE_MACHINE_ARN,
      name,
      status,
      startDate: 1_768_073_000_000,
      stopDate: status === 'RUNNING' ? null : 1_768_074_000_000,
      input: '{}',
      output: null,
    },
  };
}

let sagemaker: FakeSageMaker;
let stepFunctions: FakeStepFunctions;
let sfnMock: AwsClientStub<SFNClient>;
/** The Lambda's describer, over the fake Step Functions. */
const describer = new SfnExecutionDescriber({ client: new SFNClient({ region: 'us-east-1' }) });

/** The run's execution as Step Functions has it: started, then ended with `status` (RUNNING: not ended). */
function execution(status: string, failure: { error?: string } = {}, name = RUN_ID): string {
  const arn = stepFunctions.start(STATE_MACHINE_ARN, name);
  if (status === 'PENDING_REDRIVE') {
    stepFunctions.end(arn, 'FAILED');
    stepFunctions.requestRedrive(arn);
  } else if (
    status === 'SUCCEEDED' ||
    status === 'FAILED' ||
    status === 'TIMED_OUT' ||
    status === 'ABORTED'
  ) {
    stepFunctions.end(arn, status, failure);
  }
  return arn;
}

beforeEach(() => {
  stepFunctions = new FakeStepFunctions();
  sfnMock = stepFunctions.serve();
});

afterEach(() => {
  sfnMock.restore();
});

/** A candidate's model, endpoint config and endpoint as the workflow names and tags them. */
async function deployCandidate(runId: string, candidateId: string): Promise<void> {
  const tags = runTags(runId, { 'mso:candidate-id': candidateId });
  const model = resourceName(runId, 'model', candidateId);
  const config = resourceName(runId, 'endpoint-config', candidateId);
  await sagemaker.createModel({
    modelName: model,
    image: 'img',
    modelDataUrl: 's3://b/m',
    environment: {},
    tags,
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName: config,
    variant: { variantName: 'AllTraffic', modelName: model, instanceType: 'ml.g5.xlarge' },
    tags,
  });
  await sagemaker.createEndpoint({
    endpointName: resourceName(runId, 'endpoint', candidateId),
    endpointConfigName: config,
    tags,
  });
  // Two describes take the fake's endpoint from Creating to InService.
  await sagemaker.describeEndpoint(resourceName(runId, 'endpoint', candidateId));
  await sagemaker.describeEndpoint(resourceName(runId, 'endpoint', candidateId));
}

function run(event: unknown) {
  return cleanUpFailedRun(event, { host: sagemaker, compiler: sagemaker, describer, logger: silentLogger });
}

/** What `run` threw, for assertions on its name and account. */
async function failureOf(running: Promise<unknown>): Promise<CleanUpIncompleteError> {
  try {
    await running;
  } catch (error) {
    if (error instanceof CleanUpIncompleteError) return error;
    throw error;
  }
  throw new Error('Expected the clean-up to throw CleanUpIncompleteError');
}

describe('cleanUpFailedRun', () => {
  beforeEach(() => {
    sagemaker = new FakeSageMaker();
  });

  it.each(['FAILED', 'TIMED_OUT', 'ABORTED'])(
    'deletes the resources of a run whose execution ended %s',
    async (status) => {
      // Arrange
      await deployCandidate(RUN_ID, 'g5');
      execution(status);

      // Act
      const outcome = await run(statusChange(status));

      // Assert
      expect(outcome).toMatchObject({
        outcome: 'cleaned-up',
        runId: RUN_ID,
        status,
        result: {
          endpoints: [resourceName(RUN_ID, 'endpoint', 'g5')],
          endpointConfigs: [resourceName(RUN_ID, 'endpoint-config', 'g5')],
          models: [resourceName(RUN_ID, 'model', 'g5')],
        },
      });
      expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    },
  );

  it('leaves the resources of other runs alone', async () => {
    // Arrange
    await deployCandidate(RUN_ID, 'g5');
    await deployCandidate(OTHER_RUN_ID, 'g5');
    execution('ABORTED');

    // Act
    await run(statusChange('ABORTED'));

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [resourceName(OTHER_RUN_ID, 'endpoint', 'g5')],
      endpointConfigs: [resourceName(OTHER_RUN_ID, 'endpoint-config', 'g5')],
      models: [resourceName(OTHER_RUN_ID, 'model', 'g5')],
    });
  });

  it.each([
    ['RUNNING', 'the run is live (RUNNING)'],
    ['PENDING_REDRIVE', 'the run is live (PENDING_REDRIVE)'],
    ['SUCCEEDED', 'the run succeeded: its own clean-up ran'],
  ])('ignores an execution whose status is %s, whatever the event says', async (status, reason) => {
    // Arrange
    await deployCandidate(RUN_ID, 'g5');
    const executionArn = execution(status);

    // Act
    const outcome = await run(statusChange('FAILED'));

    // Assert
    expect(outcome).toEqual({ outcome: 'ignored', runId: RUN_ID, status, reason });
    expect(stepFunctions.described).toEqual([executionArn]);
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
  });

  it('leaves a run redriven since its failure alone: its endpoints are in use again', async () => {
    // Arrange: the run failed, then was redriven under the same execution name.
    await deployCandidate(RUN_ID, 'g5');
    const executionArn = execution('FAILED');
    stepFunctions.redrive(executionArn);

    // Act
    const outcome = await run(statusChange('FAILED'));

    // Assert
    expect(outcome).toEqual({
      outcome: 'ignored',
      runId: RUN_ID,
      status: 'RUNNING',
      reason: 'the run is live (RUNNING, redriven 1 time)',
    });
    expect(sagemaker.leftovers().endpoints).toEqual([resourceName(RUN_ID, 'endpoint', 'g5')]);
  });

  it('cleans up a run whose redrive failed again, by the status it has now', async () => {
    // Arrange
    await deployCandidate(RUN_ID, 'g5');
    const executionArn = execution('FAILED');
    stepFunctions.redrive(executionArn);
    stepFunctions.end(executionArn, 'TIMED_OUT');

    // Act
    const outcome = await run(statusChange('FAILED'));

    // Assert
    expect(outcome).toMatchObject({ outcome: 'cleaned-up', status: 'TIMED_OUT' });
    expect(sagemaker.leftovers().endpoints).toEqual([]);
  });

  it('deletes nothing when the execution cannot be read, and fails with TransientServiceError saying what to run', async () => {
    // Arrange: Step Functions throttles past the SDK's own retries.
    await deployCandidate(RUN_ID, 'g5');
    const executionArn = execution('ABORTED');
    stepFunctions.throttleNext = 10;

    // Act
    const cleaning = run(statusChange('ABORTED'));

    // Assert
    await expect(cleaning).rejects.toBeInstanceOf(TransientServiceError);
    await expect(cleaning).rejects.toThrow(
      `Run ${RUN_ID}: could not read execution ${executionArn} (TransientServiceError: Step Functions ` +
        `DescribeExecution of ${executionArn} failed: ThrottlingException: Rate exceeded), so nothing was ` +
        'deleted: a redriven run may be live. Once aws stepfunctions describe-execution --execution-arn ' +
        `${executionArn} says it has ended, list what is left with aws sagemaker list-endpoints --name-contains `,
    );
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
  });

  it('deletes everything else, then fails with CleanUpIncompleteError naming an endpoint still creating', async () => {
    // Arrange: an endpoint still Creating beside a deletable candidate.
    await deployCandidate(RUN_ID, 'g5');
    await sagemaker.createEndpoint({
      endpointName: resourceName(RUN_ID, 'endpoint', 'late'),
      endpointConfigName: resourceName(RUN_ID, 'endpoint-config', 'late'),
      tags: runTags(RUN_ID),
    });
    execution('ABORTED');

    // Act
    const error = await failureOf(run(statusChange('ABORTED')));

    // Assert
    expect(error.name).toBe(ErrorNames.cleanUpIncomplete);
    expect(error.message).toContain(
      `endpoint ${resourceName(RUN_ID, 'endpoint', 'late')} (still Creating when clean-up stopped waiting; ` +
        'SageMaker deletes it only once it is InService or Failed): aws sagemaker delete-endpoint --endpoint-name ' +
        resourceName(RUN_ID, 'endpoint', 'late'),
    );
    expect(sagemaker.leftovers().endpoints).toEqual([resourceName(RUN_ID, 'endpoint', 'late')]);
  });

  it('deletes everything else when one delete is refused, then fails with CleanUpIncompleteError naming it', async () => {
    // Arrange: two candidates; deleting the first one's model is denied.
    sagemaker = new FakeSageMaker({ deleteDenied: { '-m-g5': 'not authorized' } });
    await deployCandidate(RUN_ID, 'g5');
    await deployCandidate(RUN_ID, 'c5');
    const deniedModel = resourceName(RUN_ID, 'model', 'g5');
    execution('FAILED');

    // Act
    const error = await failureOf(run(statusChange('FAILED')));

    // Assert: the refused delete did not stop the ones after it, and the error came last.
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [deniedModel] });
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([
      `DeleteEndpoint ${resourceName(RUN_ID, 'endpoint', 'g5')}`,
      `DeleteEndpoint ${resourceName(RUN_ID, 'endpoint', 'c5')}`,
      `DeleteEndpointConfig ${resourceName(RUN_ID, 'endpoint-config', 'g5')}`,
      `DeleteEndpointConfig ${resourceName(RUN_ID, 'endpoint-config', 'c5')}`,
      `DeleteModel ${deniedModel}`,
      `DeleteModel ${resourceName(RUN_ID, 'model', 'c5')}`,
    ]);
    expect(error.message).toBe(
      `Run ${RUN_ID} (FAILED): Clean-up deleted 2 endpoints, 2 endpoint configs, 1 model; LEFT 1 resource, ` +
        `finish by hand: model ${deniedModel} (AccessDeniedException: not authorized (sagemaker:DeleteModel on ` +
        `${deniedModel})): aws sagemaker delete-model --model-name ${deniedModel}.`,
    );
  });

  it('fails when the execution name is missing, naming the field', async () => {
    // Arrange
    const event = statusChange('FAILED');
    const { name: _name, ...detail } = event.detail;

    // Act
    const cleaning = run({ ...event, detail });

    // Assert
    await expect(cleaning).rejects.toThrow('detail.name: got nothing, expected string');
  });

  it('fails when the event is not a Step Functions status change, naming the field', async () => {
    // Act
    const cleaning = run({ ...statusChange('FAILED'), source: 'aws.sagemaker' });

    // Assert
    await expect(cleaning).rejects.toThrow('source: got "aws.sagemaker", expected "aws.states"');
  });

  it('keeps the endpoint tagged mso:keep=true with its config and model, and deletes the rest of the run', async () => {
    // Arrange: the run timed out after its success-path clean-up tagged the kept endpoint.
    await deployCandidate(RUN_ID, 'g5');
    await deployCandidate(RUN_ID, 'c5');
    const kept = {
      endpointName: resourceName(RUN_ID, 'endpoint', 'g5'),
      endpointConfigName: resourceName(RUN_ID, 'endpoint-config', 'g5'),
      modelName: resourceName(RUN_ID, 'model', 'g5'),
    };
    await sagemaker.addTags(kept, { 'mso:keep': 'true' });
    execution('TIMED_OUT');

    // Act
    const outcome = await run(statusChange('TIMED_OUT'));

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [kept.endpointName],
      endpointConfigs: [kept.endpointConfigName],
      models: [kept.modelName],
    });
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([
      `DeleteEndpoint ${resourceName(RUN_ID, 'endpoint', 'c5')}`,
      `DeleteEndpointConfig ${resourceName(RUN_ID, 'endpoint-config', 'c5')}`,
      `DeleteModel ${resourceName(RUN_ID, 'model', 'c5')}`,
    ]);
    expect(outcome).toMatchObject({
      outcome: 'cleaned-up',
      result: { kept: [kept.endpointName, kept.endpointConfigName, kept.modelName] },
    });
  });

  it('fails with TransientServiceError naming what it found so far and the commands for the rest when the tag listing is throttled', async () => {
    // Prepare: the names are listed, then ListTags is throttled past the SDK's retries.
    await deployCandidate(RUN_ID, 'g5');
    execution('ABORTED');
    const throttled = new TransientServiceError(
      'ListTags for endpoint x failed after the SDK’s own retries: ThrottlingException: Rate exceeded',
    );
    sagemaker.listProjectResources = () => Promise.reject(throttled);
    const endpoint = resourceName(RUN_ID, 'endpoint', 'g5');
    const config = resourceName(RUN_ID, 'endpoint-config', 'g5');
    const model = resourceName(RUN_ID, 'model', 'g5');
    const prefix = endpoint.slice(0, endpoint.indexOf('-ep-') + 1);

    // Act
    const cleaning = run(statusChange('ABORTED'));

    // Assert
    await expect(cleaning).rejects.toBeInstanceOf(TransientServiceError);
    await expect(cleaning).rejects.toThrow(
      `Run ${RUN_ID} (ABORTED): listing the run's resources failed (TransientServiceError: ListTags for ` +
        'endpoint x failed after the SDK’s own retries: ThrottlingException: Rate exceeded), so nothing was ' +
        `deleted. Found so far: endpoint ${endpoint}: aws sagemaker delete-endpoint --endpoint-name ${endpoint}; ` +
        `endpoint-config ${config}: aws sagemaker delete-endpoint-config --endpoint-config-name ${config}; ` +
        `model ${model}: aws sagemaker delete-model --model-name ${model}. For the rest, list what is left with ` +
        `aws sagemaker list-endpoints --name-contains ${prefix} (and list-endpoint-configs, list-models, ` +
        'list-compilation-jobs with the same filter) and delete each endpoint, then its config, then its model ' +
        '(aws sagemaker delete-endpoint --endpoint-name <name>, delete-endpoint-config, delete-model), except ' +
        'what is tagged mso:keep=true',
    );
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
  });

  it('says it found nothing yet when the first listing fails, and fails with CleanUpIncompleteError when access is denied', async () => {
    // Prepare
    await deployCandidate(RUN_ID, 'g5');
    execution('FAILED');
    const denied = Object.assign(new Error('not authorized to perform: sagemaker:ListEndpoints'), {
      name: 'AccessDeniedException',
    });
    sagemaker.listRunResources = () => Promise.reject(denied);

    // Act
    const cleaning = run(statusChange('FAILED'));

    // Assert
    await expect(cleaning).rejects.toBeInstanceOf(CleanUpIncompleteError);
    await expect(cleaning).rejects.toThrow('so nothing was deleted. Found so far: nothing. For the rest,');
  });
});

describe('cleanUpFailedRun after a run without a recommendation', () => {
  beforeEach(() => {
    sagemaker = new FakeSageMaker();
  });

  it('does nothing when the run ended in "No recommendation" (its own clean-up ran)', async () => {
    // Prepare: something of the run is still there; this layer must leave it to the printed commands.
    await deployCandidate(RUN_ID, 'gpu');
    const executionArn = execution('FAILED', { error: ErrorNames.noRecommendation });

    // Act
    const result = await run(statusChange('FAILED'));

    // Assert
    expect(result).toEqual({
      outcome: 'ignored',
      runId: RUN_ID,
      status: 'FAILED',
      reason: 'NoRecommendationError: the run cleaned up on its success path',
    });
    expect(stepFunctions.described).toEqual([executionArn]);
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
  });

  it('does nothing when an async run ended in "No input completed" (its own clean-up ran)', async () => {
    // Prepare
    await deployCandidate(RUN_ID, 'gpu');
    const executionArn = execution('FAILED', { error: ErrorNames.noInputCompleted });

    // Act
    const result = await run(statusChange('FAILED'));

    // Assert
    expect(result).toEqual({
      outcome: 'ignored',
      runId: RUN_ID,
      status: 'FAILED',
      reason: 'NoInputCompletedError: the run cleaned up on its success path',
    });
    expect(stepFunctions.described).toEqual([executionArn]);
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
  });

  it('cleans up a run that failed with another error', async () => {
    // Prepare
    await deployCandidate(RUN_ID, 'gpu');
    execution('FAILED', { error: ErrorNames.endpointFailed });

    // Act
    const result = await run(statusChange('FAILED'));

    // Assert
    expect(result.outcome).toBe('cleaned-up');
    expect(sagemaker.leftovers().endpoints).toEqual([]);
  });
});
