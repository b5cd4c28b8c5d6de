import { beforeEach, describe, expect, it } from '@jest/globals';
import { cleanUpFailedRun } from '../../handlers/clean-up-failed-run.js';
import { ResourceBusyError } from '../../handlers/contracts/errors.js';
import { resourceName, runTags } from '../../handlers/contracts/names.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { silentLogger } from '../support/memory-object-store.js';

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
  return cleanUpFailedRun(event, { host: sagemaker, compiler: sagemaker, logger: silentLogger });
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

    // Act
    await run(statusChange('ABORTED'));

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [resourceName(OTHER_RUN_ID, 'endpoint', 'g5')],
      endpointConfigs: [resourceName(OTHER_RUN_ID, 'endpoint-config', 'g5')],
      models: [resourceName(OTHER_RUN_ID, 'model', 'g5')],
    });
  });

  it.each(['RUNNING', 'SUCCEEDED', 'PENDING_REDRIVE'])(
    'ignores an execution whose status is %s',
    async (status) => {
      // Arrange
      await deployCandidate(RUN_ID, 'g5');

      // Act
      const outcome = await run(statusChange(status));

      // Assert
      expect(outcome).toEqual({ outcome: 'ignored', runId: RUN_ID, status });
      expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
    },
  );

  it('fails with ResourceBusyError while an endpoint of the run is still creating', async () => {
    // Arrange
    await sagemaker.createEndpoint({
      endpointName: resourceName(RUN_ID, 'endpoint', 'g5'),
      endpointConfigName: resourceName(RUN_ID, 'endpoint-config', 'g5'),
      tags: runTags(RUN_ID),
    });

    // Act
    const cleaning = run(statusChange('ABORTED'));

    // Assert
    await expect(cleaning).rejects.toBeInstanceOf(ResourceBusyError);
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
});
