import { beforeEach, describe, expect, it } from '@jest/globals';
import { cleanUpAsyncRun } from '../../../../core/steps/async/clean-up-async-run.js';
import type { AsyncEndpointPlan, CleanUpAsyncRunEvent } from '../../../../core/contracts/async-state.js';
import type { CleanUpResult } from '../../../../core/contracts/optimization-state.js';
import { type CleanUpAccount, CleanUpStatuses } from '../../../../core/contracts/clean-up-account.js';
import { runTags } from '../../../../core/contracts/names.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { completedInCause } from '../../../../core/contracts/completed-work.js';
import { batchResultsUri } from '../../../../core/async/batch-results.js';
import { FakeScalingRegistry, ScriptedSageMaker } from '../../async/support/async-fakes.js';

const RUN_ID = 'nightly-2026-05-23';
const ENDPOINT = 'mso-nightly-2026-05-23-558c6ef5-ep-async';
const CONFIG = 'mso-nightly-2026-05-23-558c6ef5-ec-async';
const MODEL = 'mso-nightly-2026-05-23-558c6ef5-m-async';
const REUSED = 'team-async-endpoint';
const FAILURE = { Error: 'EndpointFailedError', Cause: `Endpoint ${ENDPOINT} failed: capacity` };
const NOW = Date.parse('2026-05-23T10:00:00Z');
const DEADLINE = NOW + 45 * 60 * 1000;

/** A first round's account: nothing done unless `fields` say so. */
function account(fields: Partial<CleanUpAccount>): CleanUpAccount {
  return {
    status: CleanUpStatuses.complete,
    endpoints: [],
    endpointConfigs: [],
    models: [],
    stoppedCompilationJobs: [],
    deregisteredScaling: [],
    kept: [],
    left: [],
    waitingFor: [],
    waitSeconds: 0,
    round: 1,
    deadlineEpochMs: DEADLINE,
    message: 'Clean-up deleted 0 endpoints, 0 endpoint configs, 0 models; nothing left.',
    ...fields,
  };
}

const RUN_PREFIX = `s3://artifacts/runs/${RUN_ID}/`;
/** Two batches: 40 inputs, then 5. */
const BATCHES = [
  { batchIndex: 0, firstItemIndex: 0, itemCount: 40 },
  { batchIndex: 1, firstItemIndex: 40, itemCount: 5 },
];

let sagemaker: ScriptedSageMaker;
let scaling: FakeScalingRegistry;
let store: MemoryObjectStore;

beforeEach(() => {
  store = new MemoryObjectStore();
  // In service at the first DescribeEndpoint: clean-up finds it settled.
  sagemaker = new ScriptedSageMaker({ describesUntilInService: 0 });
  scaling = new FakeScalingRegistry(sagemaker.calls);
});

function deployed(keepAfterRun: boolean): AsyncEndpointPlan {
  return {
    action: 'deploy',
    endpointName: ENDPOINT,
    endpointConfigName: CONFIG,
    modelName: MODEL,
    variantName: 'AllTraffic',
    keepAfterRun,
  };
}

const REUSED_PLAN: AsyncEndpointPlan = {
  action: 'reuse',
  endpointName: REUSED,
  variantName: 'AllTraffic',
  keepAfterRun: true,
};

/** What "Deploy async endpoint" and "Check async endpoint" leave: three resources, autoscaled. */
async function deployRunEndpoint(): Promise<void> {
  const tags = runTags(RUN_ID);
  await sagemaker.createModel({
    modelName: MODEL,
    image: 'img',
    modelDataUrl: 's3://b/m.tar.gz',
    environment: {},
    tags,
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName: CONFIG,
    variant: {
      variantName: 'AllTraffic',
      modelName: MODEL,
      instanceType: 'ml.c5.xlarge',
      initialInstanceCount: 1,
    },
    tags,
  });
  await sagemaker.createEndpoint({ endpointName: ENDPOINT, endpointConfigName: CONFIG, tags });
  await scaling.configureAsyncScaling(ENDPOINT, 'AllTraffic', {
    minInstanceCount: 0,
    maxInstanceCount: 2,
    targetBacklogPerInstance: 5,
    scaleInCooldownSeconds: 600,
    scaleOutCooldownSeconds: 60,
  });
  sagemaker.calls.length = 0;
}

function cleanUp(
  event: Omit<CleanUpAsyncRunEvent, 'plan'> & { endpoint: AsyncEndpointPlan },
): Promise<CleanUpResult> {
  const { endpoint, ...rest } = event;
  return cleanUpAsyncRun(
    { plan: { runId: RUN_ID, endpoint, runPrefixUri: RUN_PREFIX, itemCount: 45, batches: BATCHES }, ...rest },
    { host: sagemaker, scaling, store, logger: silentLogger, nowEpochMs: () => NOW },
  );
}

describe('cleanUpAsyncRun', () => {
  it("deregisters the endpoint's autoscaling before deleting it, then its config and model", async () => {
    // Arrange
    await deployRunEndpoint();

    // Act
    const result = await cleanUp({ endpoint: deployed(false), summary: { runId: RUN_ID } });

    // Assert
    expect(sagemaker.calls).toEqual([
      `DeregisterScalableTarget endpoint/${ENDPOINT}/variant/AllTraffic`,
      `DeleteEndpoint ${ENDPOINT}`,
      `DeleteEndpointConfig ${CONFIG}`,
      `DeleteModel ${MODEL}`,
    ]);
    expect(result).toEqual(
      account({
        endpoints: [ENDPOINT],
        endpointConfigs: [CONFIG],
        models: [MODEL],
        deregisteredScaling: [`endpoint/${ENDPOINT}/variant/AllTraffic`],
        message: 'Clean-up deleted 1 endpoint, 1 endpoint config, 1 model; nothing left.',
      }),
    );
    expect(scaling.policies.size).toBe(0);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('keeps the endpoint after a successful run with keepAfterRun, tagged so the janitor leaves it', async () => {
    // Arrange
    await deployRunEndpoint();

    // Act
    const result = await cleanUp({ endpoint: deployed(true), summary: { runId: RUN_ID } });

    // Assert
    expect(sagemaker.calls).toEqual([`AddTags ${ENDPOINT}`]);
    expect(result).toEqual(
      account({
        kept: [ENDPOINT, CONFIG, MODEL],
        message: `Clean-up deleted 0 endpoints, 0 endpoint configs, 0 models; kept ${ENDPOINT}, ${CONFIG}, ${MODEL} as asked; nothing left.`,
      }),
    );
    expect(sagemaker.tagsOf('endpoint', ENDPOINT)).toMatchObject({ 'mso:keep': 'true' });
    expect(sagemaker.tagsOf('endpoint-config', CONFIG)).toMatchObject({ 'mso:keep': 'true' });
    expect(sagemaker.tagsOf('model', MODEL)).toMatchObject({ 'mso:keep': 'true' });
    // Its autoscaling stays, so it scales out from zero for the next run.
    expect(scaling.policies.has(`endpoint/${ENDPOINT}/variant/AllTraffic`)).toBe(true);
  });

  it('deletes everything after a failure, even with keepAfterRun', async () => {
    // Arrange
    await deployRunEndpoint();

    // Act
    const result = await cleanUp({ endpoint: deployed(true), error: FAILURE });

    // Assert
    expect(result.kept).toEqual([]);
    expect(result.endpoints).toEqual([ENDPOINT]);
    expect(sagemaker.calls).not.toContain(`AddTags ${ENDPOINT}`);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('deregisters the autoscaling of an endpoint deleted from outside the run, after the failure it caused', async () => {
    // Arrange: deployed and autoscaled, then deleted by someone else; config and model remain.
    await deployRunEndpoint();
    await sagemaker.deleteEndpoint(ENDPOINT);
    sagemaker.calls.length = 0;

    // Act
    const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

    // Assert
    expect(scaling.policies.size).toBe(0);
    expect(sagemaker.calls[0]).toBe(`DeregisterScalableTarget endpoint/${ENDPOINT}/variant/AllTraffic`);
    expect(result.endpoints).toEqual([]);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('leaves a reused endpoint untouched: no deregistration, no deletion', async () => {
    // Arrange
    sagemaker.addExistingEndpoint(REUSED, 'ml.c5.xlarge');

    // Act
    const result = await cleanUp({ endpoint: REUSED_PLAN, summary: { runId: RUN_ID } });

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(result).toEqual(account({}));
    expect(sagemaker.endpoints.has(REUSED)).toBe(true);
  });

  it('leaves a reused endpoint untouched after a failure too', async () => {
    // Arrange
    sagemaker.addExistingEndpoint(REUSED, 'ml.c5.xlarge');

    // Act
    await cleanUp({ endpoint: REUSED_PLAN, error: FAILURE });

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(sagemaker.endpoints.has(REUSED)).toBe(true);
  });

  it('deletes what a failure left half-created: a model and config without endpoint', async () => {
    // Arrange
    await deployRunEndpoint();
    sagemaker.endpoints.delete(ENDPOINT);

    // Act
    const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

    // Assert
    expect(result).toMatchObject({ endpoints: [], endpointConfigs: [CONFIG], models: [MODEL] });
  });

  it('waits for the endpoint while it is still creating, keeping its config and model for the next round', async () => {
    // Arrange: the run failed while its endpoint was being created.
    await deployRunEndpoint();
    sagemaker.answerDescribe(ENDPOINT, { endpointName: ENDPOINT, status: 'Creating' });

    // Act
    const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

    // Assert
    expect(result).toMatchObject({
      status: CleanUpStatuses.waiting,
      waitingFor: [ENDPOINT],
      waitSeconds: 30,
      left: [],
      deadlineEpochMs: DEADLINE,
    });
    expect(sagemaker.calls).not.toContain(`DeleteEndpoint ${ENDPOINT}`);
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [ENDPOINT],
      endpointConfigs: [CONFIG],
      models: [MODEL],
    });
  });

  it('leaves an endpoint still creating at the deadline in the account, with its config, model and commands', async () => {
    // Arrange: earlier rounds waited until the deadline, which has now passed.
    await deployRunEndpoint();
    sagemaker.answerDescribe(ENDPOINT, { endpointName: ENDPOINT, status: 'Creating' });
    const previous = account({
      status: CleanUpStatuses.waiting,
      waitingFor: [ENDPOINT],
      round: 25,
      deadlineEpochMs: NOW - 1,
    });

    // Act
    const result = await cleanUp({ endpoint: deployed(false), error: FAILURE, cleanUp: previous });

    // Assert
    expect(result.status).toBe(CleanUpStatuses.incomplete);
    expect(result.left).toEqual([
      {
        kind: 'endpoint',
        name: ENDPOINT,
        reason:
          'still Creating when clean-up stopped waiting; SageMaker deletes it only once it is InService or Failed',
        command: `aws sagemaker delete-endpoint --endpoint-name ${ENDPOINT}`,
      },
      {
        kind: 'endpoint-config',
        name: CONFIG,
        reason: `kept for endpoint ${ENDPOINT}, which is still there: delete it first`,
        command: `aws sagemaker delete-endpoint-config --endpoint-config-name ${CONFIG}`,
      },
      {
        kind: 'model',
        name: MODEL,
        reason: `kept for endpoint ${ENDPOINT}, which is still there: delete it first`,
        command: `aws sagemaker delete-model --model-name ${MODEL}`,
      },
    ]);
    expect(result.runError?.Error).toBe('EndpointFailedError');
  });

  describe('a failed async run names the results it completed', () => {
    /** The first batch as "Record batch results" writes it: 38 completed, one failed, one timed out. */
    function recordFirstBatch(): void {
      const results = Array.from({ length: 40 }, (_, itemIndex) => ({
        itemIndex,
        inputLocation: `s3://in/${itemIndex}.bin`,
        status: itemIndex === 7 ? 'Failed' : itemIndex === 9 ? 'TimedOut' : 'Completed',
        ...(itemIndex === 7 || itemIndex === 9 ? {} : { outputLocation: `s3://out/${itemIndex}.out` }),
        timeInSageMakerMs: null,
        totalMs: null,
      }));
      store.seed(batchResultsUri(RUN_PREFIX, 0), JSON.stringify({ results }));
    }

    it('adds the recorded batches, their counts and their files to the run error, beside the clean-up account', async () => {
      // Arrange: the first batch recorded, the second still in flight when the run failed.
      await deployRunEndpoint();
      recordFirstBatch();

      // Act
      const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

      // Assert
      const cause = JSON.parse(result.runError?.Cause ?? '{}') as Record<string, unknown>;
      expect(cause.errorMessage).toBe(FAILURE.Cause);
      expect(typeof cause.cleanUp).toBe('string');
      expect(completedInCause(result.runError?.Cause)).toEqual({
        message:
          "Before the failure, 1 of 2 batches recorded their results: 40 inputs of 45, 38 completed, 1 failed, 1 timed out (each input's status and output location are in the batch files listed). The other 5 inputs have no recorded result (one that completed has its output at the endpoint's S3 output path).",
        locations: [batchResultsUri(RUN_PREFIX, 0)],
      });
    });

    it('says that no batch recorded its results when the run failed in the first one', async () => {
      // Arrange
      await deployRunEndpoint();

      // Act
      const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

      // Assert
      expect(completedInCause(result.runError?.Cause)).toEqual({
        message:
          'No batch recorded its results before the failure: none of the 45 inputs has a recorded result.',
        locations: [],
      });
    });

    it('still cleans up when the recorded results cannot be read, and says where they are', async () => {
      // Arrange: a batch file that is not JSON.
      await deployRunEndpoint();
      store.seed(batchResultsUri(RUN_PREFIX, 0), '{ not json');

      // Act
      const result = await cleanUp({ endpoint: deployed(false), error: FAILURE });

      // Assert
      expect(result.endpoints).toEqual([ENDPOINT]);
      expect(completedInCause(result.runError?.Cause)?.message).toMatch(
        new RegExp(
          `^The results recorded before the failure could not be read \\(SyntaxError: .*\\); each batch's are under ${RUN_PREFIX}async/results/\\.$`,
        ),
      );
    });

    it('reads nothing on the success path', async () => {
      // Arrange
      await deployRunEndpoint();
      recordFirstBatch();

      // Act
      const result = await cleanUp({ endpoint: deployed(false), summary: { runId: RUN_ID } });

      // Assert
      expect(result.runError).toBeUndefined();
    });
  });
});
