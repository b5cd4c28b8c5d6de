import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { cleanUpFailedRun } from '../../core/operations/clean-up-failed-run.js';
import { ErrorNames, TransientServiceError } from '../../core/contracts/errors.js';
import { resourceName, runTags } from '../../core/contracts/names.js';
import { SfnExecutionDescriber } from '../../lambdas/adapters/sfn-execution-describer.js';
import { type JsonValue, type RunnerEvent, runStateMachine } from '../../local/runner/index.js';
import { type StepHandler, stepTaskResolver } from '../../local/environment/step-handlers.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FailedRunCleanUpWorkflow } from '../../workflows/failed-run-clean-up-workflow.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { FakeStepFunctions } from '../support/fake-step-functions.js';
import { silentLogger } from '../support/memory-object-store.js';

/**
 * "Clean up failed run", the safety net's second layer, on its synthesized definition run locally
 * over the real `clean-up-failed-run` handler, the Lambda's DescribeExecution adapter over a fake
 * Step Functions that redrives as AWS does, and a fake SageMaker that fails where AWS can.
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const RUN_ID = 'nightly-2026-01-10';
const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const DENIED = 'User: arn:aws:sts::123456789012:assumed-role/mso-clean-up/fn is not authorized';

/** The event EventBridge starts the state machine with (Step Functions developer guide example). */
function statusChange(status: string): JsonValue {
  const executionArn = `${STATE_MACHINE_ARN.replace(':stateMachine:', ':execution:')}:${RUN_ID}`;
  return {
    version: '0',
    id: '315c1398-40ff-a850-213b-158f73e60175',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: '2026-01-10T19:42:21Z',
    region: 'us-east-1',
    resources: [executionArn],
    detail: {
      executionArn,
      stateMachineArn: STATE_MACHINE_ARN,
      name: RUN_ID,
      status,
      startDate: 1_768_073_000_000,
      stopDate: 1_768_074_000_000,
      input: '{}',
      output: null,
    },
  };
}

function names(candidateId: string) {
  return {
    endpoint: resourceName(RUN_ID, 'endpoint', candidateId),
    config: resourceName(RUN_ID, 'endpoint-config', candidateId),
    model: resourceName(RUN_ID, 'model', candidateId),
  };
}

/** A candidate's model, config and endpoint as "Deploy candidate" names and tags them, InService. */
async function deploy(sagemaker: FakeSageMaker, candidateId: string, settle = true): Promise<void> {
  const { endpoint, config, model } = names(candidateId);
  const tags = runTags(RUN_ID);
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
  await sagemaker.createEndpoint({ endpointName: endpoint, endpointConfigName: config, tags });
  if (settle) {
    // Two describes take the fake's endpoint from Creating to InService.
    await sagemaker.describeEndpoint(endpoint);
    await sagemaker.describeEndpoint(endpoint);
  }
}

let stepFunctions: FakeStepFunctions;
let sfnMock: AwsClientStub<SFNClient>;
/** The run's execution, which ended ABORTED (the event below says so). */
let executionArn: string;
const describer = new SfnExecutionDescriber({ client: new SFNClient({ region: 'us-east-1' }) });

beforeEach(() => {
  stepFunctions = new FakeStepFunctions();
  sfnMock = stepFunctions.serve();
  executionArn = stepFunctions.start(STATE_MACHINE_ARN, RUN_ID);
  stepFunctions.end(executionArn, 'ABORTED');
});

afterEach(() => {
  sfnMock.restore();
});

/**
 * Runs the synthesized state machine; `beforeAttempt` and `afterAttempt` act between attempts (the
 * first runs after the in-flight wait: a redrive there is one during the wait).
 */
async function runCleanUp(
  sagemaker: FakeSageMaker,
  afterAttempt?: (attempt: number) => Promise<void>,
  beforeAttempt?: (attempt: number) => void,
) {
  let attempt = 0;
  const handler: StepHandler = async (payload) => {
    attempt += 1;
    beforeAttempt?.(attempt);
    try {
      return await cleanUpFailedRun(payload, {
        host: sagemaker,
        compiler: sagemaker,
        describer,
        logger: silentLogger,
      });
    } finally {
      await afterAttempt?.(attempt);
    }
  };
  const events: RunnerEvent[] = [];
  const { failedRunCleanUp } = workflows;
  const result = await runStateMachine({
    definition: failedRunCleanUp.definition,
    resources: failedRunCleanUp.resources,
    input: statusChange('ABORTED'),
    // EventBridge cannot name the execution: it gets a generated name.
    executionName: '0e4b1c2a-7f0d-4d5e-9a51-3c1f2b6d8e90',
    resolveTask: stepTaskResolver({ 'clean-up-failed-run': handler }),
    waitTimeOverrideMs: 1,
    retryIntervalOverrideMs: 1,
    onEvent: (event) => events.push(event),
  });
  const statesEntered = events.flatMap((event) => (event.type === 'StateEntered' ? [event.stateName] : []));
  const retries = events.flatMap((event) => (event.type === 'StateRetried' ? [event.attempt] : []));
  return { result, statesEntered, retries, attempts: () => attempt };
}

/** SageMaker refusing DeleteEndpoint on one endpoint a number of times, then deleting it. */
class DeniesEndpointDeletes extends FakeSageMaker {
  private denied = 0;

  constructor(
    private readonly endpointName: string,
    private readonly times: number,
  ) {
    super();
  }

  override deleteEndpoint(endpointName: string): Promise<boolean> {
    if (endpointName !== this.endpointName || this.denied >= this.times)
      return super.deleteEndpoint(endpointName);
    this.denied += 1;
    this.calls.push(`DeleteEndpoint ${endpointName} (denied)`);
    return Promise.reject(
      Object.assign(new Error(`${DENIED} (sagemaker:DeleteEndpoint on ${endpointName})`), {
        name: 'AccessDeniedException',
      }),
    );
  }
}

describe('"Clean up failed run" (synthesized definition, run locally)', () => {
  it('waits out in-flight steps, then retries with jittered backoff for about two hours (at least one, almost surely) before it gives up', () => {
    // Act
    const { definition } = workflows.failedRunCleanUp;
    const task = definition.States['Clean up failed run'];

    // Assert
    expect(definition.StartAt).toBe('Wait for in-flight steps to stop');
    // The longest creating step's timeout (30 s) plus a 60-second margin.
    expect(definition.States['Wait for in-flight steps to stop']).toMatchObject({
      Type: 'Wait',
      Seconds: 90,
    });
    expect(definition.TimeoutSeconds).toBe(5 * 3600);
    expect(task?.Retry).toEqual([
      {
        ErrorEquals: [
          'Lambda.ServiceException',
          'Lambda.AWSLambdaException',
          'Lambda.SdkClientException',
          'Lambda.TooManyRequestsException',
        ],
        IntervalSeconds: 2,
        BackoffRate: 2,
        MaxAttempts: 6,
        JitterStrategy: 'FULL',
      },
      {
        ErrorEquals: [ErrorNames.cleanUpIncomplete, ErrorNames.transientService, 'States.Timeout'],
        IntervalSeconds: 60,
        BackoffRate: 2,
        MaxAttempts: 12,
        MaxDelaySeconds: 1800,
        JitterStrategy: 'FULL',
      },
    ]);
    expect(task?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Clean-up gave up' },
    ]);
  });

  it('deletes an endpoint created after the abort, found by the attempt after it appeared', async () => {
    // Prepare: an endpoint still Creating makes the first attempt leave something; a deploy that
    // was in flight creates another one before the second attempt.
    const sagemaker = new FakeSageMaker({ creatingFor: { '-ep-early': 1 } });
    await deploy(sagemaker, 'early', false);
    const late = names('late');

    // Act
    const run = await runCleanUp(sagemaker, async (attempt) => {
      if (attempt === 1) await deploy(sagemaker, 'late');
    });

    // Assert
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(sagemaker.calls).toContain(`DeleteEndpoint ${late.endpoint}`);
    expect(run.retries).toEqual([1]);
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.output).toMatchObject({
      outcome: 'cleaned-up',
      runId: RUN_ID,
      status: 'ABORTED',
      result: { status: 'COMPLETE', left: [] },
    });
  });

  it('retries a delete refused twice and deletes everything on the third attempt', async () => {
    // Prepare
    const gpu = names('gpu');
    const sagemaker = new DeniesEndpointDeletes(gpu.endpoint, 2);
    await deploy(sagemaker, 'gpu');
    await deploy(sagemaker, 'cpu');

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(sagemaker.calls.filter((call) => call.startsWith(`DeleteEndpoint ${gpu.endpoint}`))).toEqual([
      `DeleteEndpoint ${gpu.endpoint} (denied)`,
      `DeleteEndpoint ${gpu.endpoint} (denied)`,
      `DeleteEndpoint ${gpu.endpoint}`,
    ]);
    expect(run.retries).toEqual([1, 2]);
    expect(run.statesEntered.slice(-2)).toEqual(['Clean up failed run', 'Failed run cleaned up']);
  });

  it('ends in "Clean-up gave up" with the account as its cause when the delete is always refused', async () => {
    // Prepare
    const gpu = names('gpu');
    const sagemaker = new DeniesEndpointDeletes(gpu.endpoint, Number.POSITIVE_INFINITY);
    await deploy(sagemaker, 'gpu');

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(run.attempts()).toBe(13);
    expect(run.retries).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(run.statesEntered.slice(-2)).toEqual(['Clean up failed run', 'Clean-up gave up']);
    if (run.result.status !== 'FAILED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.error).toBe(ErrorNames.cleanUpIncomplete);
    const cause = JSON.parse(run.result.cause) as { readonly errorMessage?: unknown };
    expect(cause.errorMessage).toBe(
      `Run ${RUN_ID} (ABORTED): Clean-up deleted 0 endpoints, 0 endpoint configs, 0 models; LEFT 3 resources, ` +
        `finish by hand: endpoint ${gpu.endpoint} (AccessDeniedException: ${DENIED} (sagemaker:DeleteEndpoint on ` +
        `${gpu.endpoint})): aws sagemaker delete-endpoint --endpoint-name ${gpu.endpoint}; ` +
        `endpoint-config ${gpu.config} (kept for endpoint ${gpu.endpoint}, which is still there: delete it first): ` +
        `aws sagemaker delete-endpoint-config --endpoint-config-name ${gpu.config}; ` +
        `model ${gpu.model} (kept for endpoint ${gpu.endpoint}, which is still there: delete it first): ` +
        `aws sagemaker delete-model --model-name ${gpu.model}.`,
    );
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [gpu.endpoint],
      endpointConfigs: [gpu.config],
      models: [gpu.model],
    });
  });

  it('keeps the endpoint a run tagged mso:keep=true before it timed out, and deletes the rest', async () => {
    // Prepare: the success-path clean-up's first round tagged the kept endpoint, then the run timed out.
    const sagemaker = new FakeSageMaker();
    await deploy(sagemaker, 'gpu');
    await deploy(sagemaker, 'cpu');
    const kept = names('gpu');
    await sagemaker.addTags(
      { endpointName: kept.endpoint, endpointConfigName: kept.config, modelName: kept.model },
      { 'mso:keep': 'true' },
    );

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [kept.endpoint],
      endpointConfigs: [kept.config],
      models: [kept.model],
    });
    expect(run.statesEntered.slice(-1)).toEqual(['Failed run cleaned up']);
  });

  it('leaves a run redriven during the in-flight wait alone: ignored, the run is live', async () => {
    // Prepare: the run is redriven under the same name before the first attempt.
    const sagemaker = new FakeSageMaker();
    await deploy(sagemaker, 'gpu');
    const gpu = names('gpu');

    // Act
    const run = await runCleanUp(sagemaker, undefined, (attempt) => {
      if (attempt === 1) stepFunctions.redrive(executionArn);
    });

    // Assert
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([]);
    expect(sagemaker.leftovers().endpoints).toEqual([gpu.endpoint]);
    expect(stepFunctions.described).toEqual([executionArn]);
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.output).toEqual({
      outcome: 'ignored',
      runId: RUN_ID,
      status: 'RUNNING',
      reason: 'the run is live (RUNNING, redriven 1 time)',
    });
  });

  it('stops retrying and deletes nothing more once a redrive makes the run live during the retries', async () => {
    // Prepare: an endpoint still Creating makes the first attempt leave something; the run is
    // redriven before the second attempt and its endpoints are in use again.
    const sagemaker = new FakeSageMaker({ creatingFor: { '-ep-early': 5 } });
    await deploy(sagemaker, 'early', false);
    const early = names('early');

    // Act
    const run = await runCleanUp(sagemaker, (attempt) => {
      if (attempt === 1) stepFunctions.redrive(executionArn);
      return Promise.resolve();
    });

    // Assert
    expect(run.retries).toEqual([1]);
    expect(stepFunctions.described).toEqual([executionArn, executionArn]);
    expect(sagemaker.leftovers().endpoints).toEqual([early.endpoint]);
    expect(run.statesEntered.slice(-1)).toEqual(['Failed run cleaned up']);
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.output).toMatchObject({
      outcome: 'ignored',
      reason: 'the run is live (RUNNING, redriven 1 time)',
    });
  });

  it('reads a run waiting for its redrive as live', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    await deploy(sagemaker, 'gpu');
    stepFunctions.requestRedrive(executionArn);

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([names('gpu').endpoint]);
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.output).toMatchObject({ outcome: 'ignored', status: 'PENDING_REDRIVE' });
  });

  it('retries a throttled listing on the long schedule, and deletes everything once it clears', async () => {
    // Prepare: ListTags throttled past the SDK's retries on the first seven attempts (past the
    // short schedule's six retries).
    const sagemaker = new FakeSageMaker();
    await deploy(sagemaker, 'gpu');
    const list = sagemaker.listProjectResources.bind(sagemaker);
    let throttled = 7;
    sagemaker.listProjectResources = (query) => {
      if (throttled === 0) return list(query);
      throttled -= 1;
      return Promise.reject(new TransientServiceError('ListTags for endpoint x failed: ThrottlingException'));
    };

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(run.retries).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(run.statesEntered.slice(-1)).toEqual(['Failed run cleaned up']);
  });

  it('gives up on a listing throttled every time with what it found so far and the commands for the rest', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    await deploy(sagemaker, 'gpu');
    const gpu = names('gpu');
    sagemaker.listProjectResources = () =>
      Promise.reject(new TransientServiceError('ListTags for endpoint x failed: ThrottlingException'));

    // Act
    const run = await runCleanUp(sagemaker);

    // Assert
    expect(run.attempts()).toBe(13);
    expect(run.statesEntered.slice(-2)).toEqual(['Clean up failed run', 'Clean-up gave up']);
    if (run.result.status !== 'FAILED') throw new Error(`Clean-up ${run.result.status}`);
    expect(run.result.error).toBe(ErrorNames.transientService);
    const cause = JSON.parse(run.result.cause) as { readonly errorMessage?: string };
    expect(cause.errorMessage).toContain(
      `Found so far: endpoint ${gpu.endpoint}: aws sagemaker delete-endpoint --endpoint-name ${gpu.endpoint}; ` +
        `endpoint-config ${gpu.config}: aws sagemaker delete-endpoint-config --endpoint-config-name ${gpu.config}; ` +
        `model ${gpu.model}: aws sagemaker delete-model --model-name ${gpu.model}. For the rest, list what is ` +
        'left with aws sagemaker list-endpoints --name-contains ',
    );
    expect(sagemaker.leftovers().endpoints).toEqual([gpu.endpoint]);
  });

  it('fails when the execution timeout leaves no room for the wait and the retries', () => {
    // Prepare
    const stack = new Stack(new App(), 'TooShort');
    const fn = LambdaFunction.fromFunctionArn(
      stack,
      'CleanUp',
      'arn:aws:lambda:us-east-1:123456789012:function:clean-up-failed-run',
    );

    // Act
    const act = () =>
      new FailedRunCleanUpWorkflow(stack, 'FailedRunCleanUp', {
        cleanUpFailedRun: fn,
        inFlightWait: Duration.seconds(90),
        timeout: Duration.hours(2),
      });

    // Assert
    expect(act).toThrow(
      'FailedRunCleanUpWorkflow timeout: got 2 hours, expected at least 256 minutes: the first wait ' +
        '(1 minute 30 seconds), the retry delays at their ceiling (241 minutes) and 13 attempts of a minute ' +
        'each; raise the timeout',
    );
  });
});
