import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { JANITOR_LIMITS } from '../../core/contracts/janitor-settings.js';
import { KEEP_TAG, resourceName, runTags } from '../../core/contracts/names.js';
import { notDeletedBy, sweepStaleResources } from '../../core/operations/janitor.js';
import type { EndpointStatus, ScalingRegistry } from '../../core/ports/index.js';
import { SfnRunActivity } from '../../lambdas/adapters/sfn-run-activity.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { FakeStepFunctions } from '../support/fake-step-functions.js';
import { silentLogger } from '../support/memory-object-store.js';
import { synthesizedWorkflows } from '../support/synthesized-workflows.js';

/**
 * The janitor's bound, on the settings the synthesized stack deploys (its schedule, and the grace,
 * maximum age and timeout of its Lambda), over the real sweep and run lookup (SfnRunActivity on a
 * fake Step Functions that answers DescribeExecution as AWS does) and a fake SageMaker: sweeps run
 * on the schedule's ticks, on a simulated clock, after a run ends in each way that leaves something.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
/** When the run ends in every case. */
const ENDED_AT = Date.UTC(2026, 0, 10, 12, 0, 0);

interface DeployedSettings {
  readonly intervalMinutes: number;
  readonly graceMinutes: number;
  readonly maxAgeHours: number;
  readonly timeoutMinutes: number;
}

type Resource = Readonly<{ Type?: string; Properties?: Readonly<Record<string, unknown>> }>;

/** The janitor's schedule and Lambda settings in the synthesized template. */
function deployedSettings(template: Readonly<Record<string, unknown>>): DeployedSettings {
  const resources = Object.values((template.Resources ?? {}) as Record<string, Resource>);
  const schedule = resources.find(
    (r) =>
      r.Type === 'AWS::Scheduler::Schedule' &&
      typeof r.Properties?.Description === 'string' &&
      r.Properties.Description.startsWith('Janitor'),
  );
  const janitor = resources.find((r) => {
    const env = r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined;
    return r.Type === 'AWS::Lambda::Function' && env?.Variables?.STEP_NAME === 'janitor';
  });
  const rate = /^rate\((\d+) minutes\)$/.exec(String(schedule?.Properties?.ScheduleExpression));
  const environment = janitor?.Properties?.Environment as { Variables?: Record<string, string> } | undefined;
  const variables = environment?.Variables;
  if (rate === null || variables === undefined) {
    throw new Error('no janitor schedule or Lambda in the template');
  }
  return {
    intervalMinutes: Number(rate[1]),
    graceMinutes: Number(variables.JANITOR_GRACE_MINUTES),
    maxAgeHours: Number(variables.JANITOR_MAX_AGE_HOURS),
    timeoutMinutes: Number(janitor?.Properties?.Timeout) / 60,
  };
}

/** Application Auto Scaling with nothing registered (these endpoints never scaled). */
const noScaling: ScalingRegistry = {
  deregisterEndpointVariant: () => Promise.resolve(false),
  configureAsyncScaling: () => Promise.resolve(),
};

let settings: DeployedSettings;
let clock: number;
let sagemaker: FakeSageMaker;
let stepFunctions: FakeStepFunctions;
let sfnMock: AwsClientStub<SFNClient>;
const runs = new SfnRunActivity({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArns: { optimization: OPTIMIZATION_ARN, 'async-inference': ASYNC_ARN },
});

beforeAll(() => {
  settings = deployedSettings(synthesizedWorkflows().template);
}, 120_000);

beforeEach(() => {
  clock = ENDED_AT - 2 * HOUR_MS;
  sagemaker = new FakeSageMaker({}, { now: () => clock });
  // DescribeExecution is eventually consistent: a new execution is invisible for half a minute.
  stepFunctions = new FakeStepFunctions({ now: () => clock, visibleAfterMs: 30_000 });
  sfnMock = stepFunctions.serve();
});

afterEach(() => {
  sfnMock.restore();
});

/** A run that deploys one candidate two hours before ENDED_AT; returns its execution and endpoint. */
async function startRun(runId: string, tags: Record<string, string> = {}) {
  clock = ENDED_AT - 2 * HOUR_MS;
  const executionArn = stepFunctions.start(OPTIMIZATION_ARN, runId);
  const names = {
    endpoint: resourceName(runId, 'endpoint', 'gpu'),
    config: resourceName(runId, 'endpoint-config', 'gpu'),
    model: resourceName(runId, 'model', 'gpu'),
  };
  const allTags = { ...runTags(runId), ...tags };
  await sagemaker.createModel({
    modelName: names.model,
    image: 'img',
    modelDataUrl: 's3://b/m',
    environment: {},
    tags: allTags,
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName: names.config,
    variant: { variantName: 'AllTraffic', modelName: names.model, instanceType: 'ml.g5.xlarge' },
    tags: allTags,
  });
  await sagemaker.createEndpoint({
    endpointName: names.endpoint,
    endpointConfigName: names.config,
    tags: allTags,
  });
  setStatus(names.endpoint, 'InService');
  return { executionArn, ...names };
}

function setStatus(endpointName: string, status: EndpointStatus): void {
  const endpoint = sagemaker.endpoints.get(endpointName);
  if (endpoint === undefined) throw new Error(`no endpoint ${endpointName} in the fake`);
  endpoint.status = status;
}

interface Sweep {
  readonly atEpochMs: number;
  /** What the sweep counted on the alarm's metric. */
  readonly notDeleted: number;
}

/**
 * Sweeps on the schedule's ticks from `firstAt` until `done` holds after a sweep or `forMs` passes;
 * `between` acts before each sweep (time-driven changes of the world). Returns every sweep.
 */
async function sweepOnSchedule(options: {
  readonly firstAt: number;
  readonly done: () => boolean;
  readonly forMs?: number;
  readonly between?: (atEpochMs: number) => void;
}): Promise<Sweep[]> {
  const sweeps: Sweep[] = [];
  const until = options.firstAt + (options.forMs ?? 6 * HOUR_MS);
  for (let at = options.firstAt; at <= until; at += settings.intervalMinutes * MINUTE_MS) {
    clock = at;
    options.between?.(at);
    // A sweep takes up to its timeout: what it deletes is gone by the end of it.
    const request = {
      maxAgeHours: settings.maxAgeHours,
      graceMinutes: settings.graceMinutes,
      nowEpochMs: at,
    };
    const deps = { host: sagemaker, scaling: noScaling, runs, logger: silentLogger };
    try {
      const summary = await sweepStaleResources(request, deps);
      sweeps.push({ atEpochMs: at, notDeleted: summary.notDeleted });
    } catch (error) {
      sweeps.push({ atEpochMs: at, notDeleted: notDeletedBy(error) });
    }
    if (options.done()) break;
  }
  return sweeps;
}

/** Minutes from the run's end to the end of the sweep that deleted the endpoint. */
function minutesToDeletion(sweeps: readonly Sweep[], endedAt = ENDED_AT): number {
  const last = sweeps.at(-1);
  if (last === undefined) throw new Error('no sweep ran');
  return (last.atEpochMs - endedAt) / MINUTE_MS + settings.timeoutMinutes;
}

describe('the janitor on the synthesized stack’s settings (sweeps on a simulated clock)', () => {
  it('deploys a sweep every 15 minutes, a 15-minute grace and a 5-minute sweep: 35 minutes at worst, within the hour', () => {
    // Assert
    expect(settings).toEqual({ intervalMinutes: 15, graceMinutes: 15, maxAgeHours: 49, timeoutMinutes: 5 });
    expect(settings.graceMinutes + settings.intervalMinutes + settings.timeoutMinutes).toBeLessThanOrEqual(
      JANITOR_LIMITS.boundMinutes,
    );
  });

  it.each([0, 1, 7, 14])(
    'deletes what a failed run left within grace + interval + sweep of its end (first sweep %i minutes after the end)',
    async (phaseMinutes) => {
      // Prepare: the run failed and its failed-run clean-up gave up (or never ran): everything is left.
      const run = await startRun(`failed-${phaseMinutes}`);
      clock = ENDED_AT;
      stepFunctions.end(run.executionArn, 'FAILED', { error: 'EndpointFailedError' });

      // Act
      const sweeps = await sweepOnSchedule({
        firstAt: ENDED_AT + phaseMinutes * MINUTE_MS,
        done: () => !sagemaker.endpoints.has(run.endpoint),
      });

      // Assert
      expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
      const minutes = minutesToDeletion(sweeps);
      expect(minutes).toBeGreaterThanOrEqual(settings.graceMinutes);
      expect(minutes).toBeLessThanOrEqual(
        settings.graceMinutes + settings.intervalMinutes + settings.timeoutMinutes,
      );
      expect(minutes).toBeLessThanOrEqual(60);
      expect(sweeps.every((sweep) => sweep.notDeleted === 0)).toBe(true);
    },
  );

  it('deletes an endpoint stuck Creating at the first sweep after SageMaker settles it', async () => {
    // Prepare: the run was aborted while its endpoint was Creating; it reaches InService 3 h later.
    const run = await startRun('stuck-creating');
    setStatus(run.endpoint, 'Creating');
    clock = ENDED_AT;
    stepFunctions.end(run.executionArn, 'ABORTED');
    const settlesAt = ENDED_AT + 3 * HOUR_MS;

    // Act
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT + MINUTE_MS,
      done: () => !sagemaker.endpoints.has(run.endpoint),
      between: (at) => {
        if (at >= settlesAt) setStatus(run.endpoint, 'InService');
      },
    });

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([]);
    expect(minutesToDeletion(sweeps, settlesAt)).toBeLessThanOrEqual(
      settings.intervalMinutes + settings.timeoutMinutes,
    );
  });

  it('counts a refused delete on the alarm’s metric at every sweep, and deletes at the first sweep once allowed', async () => {
    // Prepare: DeleteEndpoint denied for four hours after the run failed.
    const run = await startRun('refused');
    clock = ENDED_AT;
    stepFunctions.end(run.executionArn, 'FAILED');
    const allowedAt = ENDED_AT + 4 * HOUR_MS;
    const deleteEndpoint = sagemaker.deleteEndpoint.bind(sagemaker);
    sagemaker.deleteEndpoint = (name) =>
      clock < allowedAt
        ? Promise.reject(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }))
        : deleteEndpoint(name);

    // Act
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT + MINUTE_MS,
      done: () => !sagemaker.endpoints.has(run.endpoint),
    });

    // Assert: every sweep past the grace until the refusal lifts counted it, at least 3 an hour.
    const refused = sweeps.filter(
      (s) => s.atEpochMs >= ENDED_AT + settings.graceMinutes * MINUTE_MS && s.atEpochMs < allowedAt,
    );
    expect(refused.length).toBeGreaterThanOrEqual(4 * 3);
    expect(refused.every((s) => s.notDeleted >= 1)).toBe(true);
    expect(minutesToDeletion(sweeps, allowedAt)).toBeLessThanOrEqual(
      settings.intervalMinutes + settings.timeoutMinutes,
    );
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('counts a sweep whose listing is throttled, and deletes at the first sweep after it clears', async () => {
    // Prepare
    const run = await startRun('throttled');
    clock = ENDED_AT;
    stepFunctions.end(run.executionArn, 'TIMED_OUT');
    const clearsAt = ENDED_AT + HOUR_MS;
    const list = sagemaker.listProjectResources.bind(sagemaker);
    sagemaker.listProjectResources = (query) =>
      clock < clearsAt
        ? Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'TransientServiceError' }))
        : list(query);

    // Act
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT + MINUTE_MS,
      done: () => !sagemaker.endpoints.has(run.endpoint),
    });

    // Assert
    expect(sweeps.filter((s) => s.atEpochMs < clearsAt).every((s) => s.notDeleted === 1)).toBe(true);
    expect(minutesToDeletion(sweeps, clearsAt)).toBeLessThanOrEqual(
      settings.intervalMinutes + settings.timeoutMinutes,
    );
  });

  it('never deletes the endpoint a keep-recommended run kept, nor its config and model', async () => {
    // Prepare
    const run = await startRun('kept', { [KEEP_TAG.key]: KEEP_TAG.value });
    clock = ENDED_AT;
    stepFunctions.end(run.executionArn, 'SUCCEEDED');

    // Act: three days of sweeps, past the maximum age.
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT + MINUTE_MS,
      done: () => false,
      forMs: 72 * HOUR_MS,
    });

    // Assert
    expect(sweeps.length).toBeGreaterThan(200);
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [run.endpoint],
      endpointConfigs: [run.config],
      models: [run.model],
    });
  });

  it('keeps a run redriven within the grace while it runs, and deletes within the bound of its second end', async () => {
    // Prepare
    const run = await startRun('redriven');
    clock = ENDED_AT;
    stepFunctions.end(run.executionArn, 'FAILED');
    const redrivenAt = ENDED_AT + 10 * MINUTE_MS;
    const endsAgainAt = ENDED_AT + 3 * HOUR_MS;

    // Act
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT + MINUTE_MS,
      done: () => !sagemaker.endpoints.has(run.endpoint),
      between: (at) => {
        if (
          at >= redrivenAt &&
          at < endsAgainAt &&
          stepFunctions.describeExecution({ executionArn: run.executionArn }).status === 'FAILED'
        ) {
          clock = redrivenAt;
          stepFunctions.redrive(run.executionArn);
          clock = at;
        }
        if (
          at >= endsAgainAt &&
          stepFunctions.describeExecution({ executionArn: run.executionArn }).status === 'RUNNING'
        ) {
          clock = endsAgainAt;
          stepFunctions.end(run.executionArn, 'ABORTED');
          clock = at;
        }
      },
    });

    // Assert
    expect(sweeps.filter((s) => s.atEpochMs < endsAgainAt).length).toBeGreaterThan(10);
    const minutes = minutesToDeletion(sweeps, endsAgainAt);
    expect(minutes).toBeGreaterThanOrEqual(settings.graceMinutes);
    expect(minutes).toBeLessThanOrEqual(
      settings.graceMinutes + settings.intervalMinutes + settings.timeoutMinutes,
    );
  });

  it('sweeps the resources of a run it cannot find (another stack’s, or not yet visible) only past the maximum age', async () => {
    // Prepare: tagged with a run id no watched state machine has.
    clock = ENDED_AT - 2 * HOUR_MS;
    const tags = runTags('other-stack-run');
    const endpoint = 'mso-other-stack-run-ep-gpu';
    await sagemaker.createModel({
      modelName: 'mso-other-stack-run-m-gpu',
      image: 'img',
      modelDataUrl: 's3://b/m',
      environment: {},
      tags,
    });
    await sagemaker.createEndpointConfig({
      endpointConfigName: 'mso-other-stack-run-ec-gpu',
      variant: {
        variantName: 'AllTraffic',
        modelName: 'mso-other-stack-run-m-gpu',
        instanceType: 'ml.g5.xlarge',
      },
      tags,
    });
    await sagemaker.createEndpoint({
      endpointName: endpoint,
      endpointConfigName: 'mso-other-stack-run-ec-gpu',
      tags,
    });
    setStatus(endpoint, 'InService');
    const createdAt = ENDED_AT - 2 * HOUR_MS;

    // Act
    const sweeps = await sweepOnSchedule({
      firstAt: ENDED_AT,
      done: () => !sagemaker.endpoints.has(endpoint),
      forMs: 72 * HOUR_MS,
    });

    // Assert
    const deletedAt = sweeps.at(-1)?.atEpochMs ?? 0;
    expect(deletedAt - createdAt).toBeGreaterThanOrEqual(settings.maxAgeHours * HOUR_MS);
    expect(deletedAt - createdAt).toBeLessThanOrEqual(
      settings.maxAgeHours * HOUR_MS + settings.intervalMinutes * MINUTE_MS,
    );
  });
});
