import { beforeEach, describe, expect, it } from '@jest/globals';
import { checkAsyncEndpoint } from '../../../../core/steps/async/check-async-endpoint.js';
import { deployAsyncEndpoint } from '../../../../core/steps/async/deploy-async-endpoint.js';
import {
  AsyncEndpointPhases,
  type AsyncEndpointState,
  type AsyncRunPlan,
} from '../../../../core/contracts/async-state.js';
import { EndpointFailedError } from '../../../../core/contracts/errors.js';
import type { PrepareAsyncEndpointDeps } from '../../../../core/async/endpoint-loop.js';
import {
  asyncEndpointDescription,
  FakeScalingRegistry,
  ScriptedSageMaker,
} from '../../async/support/async-fakes.js';
import {
  CONFIG,
  CREATING,
  deployPlan,
  ENDPOINT,
  endpointLoopDeps,
  MAX_POLL_SECONDS,
  MODEL,
  NOW_MS,
  POLL_SECONDS,
  REUSED,
  reusePlan,
  SCALING_IN,
} from '../../async/support/endpoint-loop.js';

let sagemaker: ScriptedSageMaker;
let scaling: FakeScalingRegistry;

beforeEach(() => {
  sagemaker = new ScriptedSageMaker();
  scaling = new FakeScalingRegistry(sagemaker.calls);
});

function deps(overrides: Partial<PrepareAsyncEndpointDeps> = {}): PrepareAsyncEndpointDeps {
  return endpointLoopDeps(sagemaker, scaling, overrides);
}

function check(
  plan: AsyncRunPlan,
  endpointState: AsyncEndpointState,
  overrides: Partial<PrepareAsyncEndpointDeps> = {},
): Promise<AsyncEndpointState> {
  return checkAsyncEndpoint({ plan, endpointState }, deps(overrides));
}

describe('checkAsyncEndpoint while creating', () => {
  it('waits again, twice as long, while the endpoint is creating', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { status: 'Creating' }));

    // Act
    const state = await check(deployPlan(), CREATING);

    // Assert
    expect(state).toEqual({ ...CREATING, waitSeconds: 60 });
    expect(scaling.calls).toEqual([]);
  });

  it('backs off no further than the longest poll interval', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { status: 'Creating' }));

    // Act
    const state = await check(deployPlan(), { ...CREATING, waitSeconds: 90 });

    // Assert
    expect(state.waitSeconds).toBe(MAX_POLL_SECONDS);
  });

  it('registers autoscaling from 0 to the maximum once in service, then is ready', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT));

    // Act
    const state = await check(deployPlan(), CREATING);

    // Assert
    expect(scaling.calls).toEqual([`ConfigureAsyncScaling endpoint/${ENDPOINT}/variant/AllTraffic`]);
    expect(scaling.policies.get(`endpoint/${ENDPOINT}/variant/AllTraffic`)).toEqual({
      minInstanceCount: 0,
      maxInstanceCount: 3,
      targetBacklogPerInstance: 2,
      scaleInCooldownSeconds: 600,
      scaleOutCooldownSeconds: 60,
    });
    expect(state).toEqual({
      phase: AsyncEndpointPhases.ready,
      waitSeconds: 0,
      deadlineEpochMs: NOW_MS,
      // The count the invocations start with: the report's instance line begins there.
      instancesAtStart: 1,
    });
  });

  it('moves a benchmark on to scaling in once in service, with a one-hour deadline', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT));

    // Act
    const state = await check(deployPlan({ benchmark: { burstSize: 100 } }), CREATING);

    // Assert
    expect(scaling.calls).toHaveLength(1);
    expect(state).toEqual({
      phase: AsyncEndpointPhases.scalingIn,
      waitSeconds: POLL_SECONDS,
      deadlineEpochMs: NOW_MS + 60 * 60_000,
    });
  });

  it('fails with EndpointFailedError quoting the reason when the endpoint failed', async () => {
    // Arrange
    sagemaker.answerDescribe(
      ENDPOINT,
      asyncEndpointDescription(ENDPOINT, {
        status: 'Failed',
        failureReason:
          'The primary container for production variant AllTraffic did not pass the ping health check.',
      }),
    );

    // Act
    const run = check(deployPlan(), CREATING);

    // Assert
    await expect(run).rejects.toBeInstanceOf(EndpointFailedError);
    await expect(run).rejects.toThrow(
      `Endpoint ${ENDPOINT} failed: The primary container for production variant AllTraffic did not pass the ping health check.`,
    );
    expect(scaling.calls).toEqual([]);
  });

  it('fails with EndpointFailedError when the endpoint no longer exists', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, undefined);

    // Act / Assert
    await expect(check(deployPlan(), CREATING)).rejects.toThrow(
      new EndpointFailedError(`Endpoint ${ENDPOINT} no longer exists`),
    );
  });

  it('fails with EndpointFailedError when the endpoint is still creating past its deadline', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { status: 'Creating' }));

    // Act
    const run = check(deployPlan(), { ...CREATING, deadlineEpochMs: NOW_MS - 1 });

    // Assert
    await expect(run).rejects.toBeInstanceOf(EndpointFailedError);
    await expect(run).rejects.toThrow(
      `Endpoint ${ENDPOINT} still Creating at its deadline (2026-05-23T03:09:59.999Z)`,
    );
  });

  it('goes on when the endpoint reaches service exactly past its deadline', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT));

    // Act
    const state = await check(deployPlan(), { ...CREATING, deadlineEpochMs: NOW_MS - 1 });

    // Assert
    expect(state.phase).toBe(AsyncEndpointPhases.ready);
  });
});

describe('checkAsyncEndpoint while scaling in (benchmark)', () => {
  it('is ready at zero instances, recording that the burst starts from zero', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { currentInstanceCount: 0 }));

    // Act
    const state = await check(deployPlan({ benchmark: { burstSize: 100 } }), SCALING_IN);

    // Assert
    expect(state).toEqual({
      phase: AsyncEndpointPhases.ready,
      waitSeconds: 0,
      deadlineEpochMs: NOW_MS,
      instancesAtStart: 0,
    });
    expect(scaling.calls).toEqual([]);
  });

  it('waits again, backing off, while instances are still running', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { currentInstanceCount: 1 }));

    // Act
    const state = await check(deployPlan({ benchmark: { burstSize: 100 } }), SCALING_IN);

    // Assert
    expect(state).toEqual({ ...SCALING_IN, waitSeconds: 60 });
  });

  it('starts the burst at the deadline anyway, with a note and the instances still running', async () => {
    // Arrange
    sagemaker.answerDescribe(ENDPOINT, asyncEndpointDescription(ENDPOINT, { currentInstanceCount: 2 }));

    // Act
    const state = await check(deployPlan({ benchmark: { burstSize: 100 } }), {
      ...SCALING_IN,
      deadlineEpochMs: NOW_MS - 1,
    });

    // Assert
    expect(state).toEqual({
      phase: AsyncEndpointPhases.ready,
      waitSeconds: 0,
      deadlineEpochMs: NOW_MS,
      instancesAtStart: 2,
      note: 'the endpoint still had 2 instance(s) at the scale-in deadline: the scale-out delay from zero was not measured',
    });
  });

  it('says the count is unknown at the deadline when SageMaker does not report it', async () => {
    // Arrange
    const { currentInstanceCount: _unknown, ...description } = asyncEndpointDescription(ENDPOINT);
    sagemaker.answerDescribe(ENDPOINT, description);

    // Act
    const state = await check(deployPlan({ benchmark: { burstSize: 100 } }), {
      ...SCALING_IN,
      deadlineEpochMs: NOW_MS - 1,
    });

    // Assert
    expect(state).not.toHaveProperty('instancesAtStart');
    expect(state.note).toBe(
      'the endpoint still had an unknown number of instance(s) at the scale-in deadline: the scale-out delay from zero was not measured',
    );
  });

  it('never registers autoscaling on a reused endpoint', async () => {
    // Arrange
    sagemaker.answerDescribe(
      REUSED,
      asyncEndpointDescription(REUSED, { currentInstanceCount: 1 }),
      asyncEndpointDescription(REUSED, { currentInstanceCount: 0 }),
    );
    const plan = reusePlan({ benchmark: { burstSize: 10 } });

    // Act
    const first = await check(plan, SCALING_IN);
    const second = await check(plan, first);

    // Assert
    expect([first.phase, second.phase]).toEqual([AsyncEndpointPhases.scalingIn, AsyncEndpointPhases.ready]);
    expect(sagemaker.describes).toEqual([REUSED, REUSED]);
    expect(scaling.calls).toEqual([]);
  });

  it('fails with EndpointFailedError when the endpoint fails while scaling in', async () => {
    // Arrange
    sagemaker.answerDescribe(
      ENDPOINT,
      asyncEndpointDescription(ENDPOINT, { status: 'Failed', failureReason: 'Capacity error' }),
    );

    // Act / Assert
    await expect(check(deployPlan({ benchmark: { burstSize: 10 } }), SCALING_IN)).rejects.toThrow(
      `Endpoint ${ENDPOINT} failed: Capacity error`,
    );
  });
});

describe('the whole loop, as the workflow runs it', () => {
  it('deploys, polls with back-off until in service, registers autoscaling, then is ready', async () => {
    // Arrange: the in-memory endpoint answers Creating three times, then InService.
    sagemaker = new ScriptedSageMaker({ describesUntilInService: 3 });
    scaling = new FakeScalingRegistry(sagemaker.calls);
    const plan = deployPlan();
    const waits: number[] = [];

    // Act
    let state = await deployAsyncEndpoint({ plan, endpointState: CREATING }, deps());
    while (state.phase !== AsyncEndpointPhases.ready) {
      waits.push(state.waitSeconds);
      state = await check(plan, state);
    }

    // Assert
    expect(waits).toEqual([30, 60, 120, 120]);
    expect(sagemaker.calls).toEqual([
      `CreateModel ${MODEL}`,
      `CreateEndpointConfig ${CONFIG}`,
      `CreateEndpoint ${ENDPOINT}`,
      `ConfigureAsyncScaling endpoint/${ENDPOINT}/variant/AllTraffic`,
    ]);
  });
});
