import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { runTags } from '../../../core/contracts/names.js';
import {
  KEEP_TAG,
  notDeletedBy,
  parseJanitorEvent,
  SweepIncompleteError,
  sweepStaleResources,
} from '../../../core/operations/janitor.js';
import type {
  AsyncScalingPolicy,
  EndpointStatus,
  RunActivity,
  RunState,
  ScalingRegistry,
} from '../../../core/ports/index.js';
import { FakeSageMaker } from '../../support/fake-sagemaker.js';
import { silentLogger } from '../../support/memory-object-store.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const MAX_AGE_HOURS = 24;
const GRACE_MINUTES = 15;
const OLD = NOW - 30 * HOUR_MS;
/** Past the grace, under the maximum age. */
const YOUNG = NOW - 2 * HOUR_MS;
/** Within the grace. */
const RECENT = NOW - 5 * MINUTE_MS;

/** Application Auto Scaling as far as the janitor sees it: registered variants and every call. */
class FakeScalingRegistry implements ScalingRegistry {
  readonly registered = new Set<string>();
  readonly calls: string[] = [];

  constructor(private readonly sagemaker: FakeSageMaker) {}

  /** Registers the variant as a scalable target (what the async workflow does once in service). */
  configureAsyncScaling(
    endpointName: string,
    variantName: string,
    policy: AsyncScalingPolicy,
  ): Promise<void> {
    const target = `endpoint/${endpointName}/variant/${variantName}`;
    this.calls.push(`ConfigureAsyncScaling ${target} ${policy.minInstanceCount}-${policy.maxInstanceCount}`);
    this.registered.add(target);
    return Promise.resolve();
  }

  deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const target = `endpoint/${endpointName}/variant/${variantName}`;
    this.calls.push(`DeregisterScalableTarget ${target}`);
    // Shares the SageMaker fake's call log, so tests can assert the order across both services.
    this.sagemaker.calls.push(`DeregisterScalableTarget ${target}`);
    return Promise.resolve(this.registered.delete(target));
  }
}

/**
 * Step Functions as far as the janitor sees it: where each run stands (a run it was told nothing of
 * is found nowhere), and every question.
 */
class FakeRunActivity implements RunActivity {
  readonly states = new Map<string, RunState>();
  /** Run id → the error its status lookup fails with. */
  readonly failures = new Map<string, Error>();
  readonly asked: string[] = [];

  runState(runId: string): Promise<RunState> {
    this.asked.push(runId);
    const failure = this.failures.get(runId);
    if (failure !== undefined) return Promise.reject(failure);
    return Promise.resolve(this.states.get(runId) ?? { liveIn: [], found: false });
  }

  ended(runId: string, endedEpochMs: number): void {
    this.states.set(runId, { liveIn: [], found: true, endedEpochMs });
  }

  live(runId: string, ...workflows: string[]): void {
    this.states.set(runId, { liveIn: workflows, found: true });
  }
}

let clock = OLD;
let sagemaker: FakeSageMaker;
let scaling: FakeScalingRegistry;
let runs: FakeRunActivity;

/** A model, endpoint config and endpoint named `mso-<id>-…`, created at `createdAt`, in service. */
async function deploy(
  id: string,
  options: {
    readonly createdAt: number;
    readonly tags?: Record<string, string>;
    readonly status?: EndpointStatus;
  },
): Promise<{ endpoint: string; config: string; model: string }> {
  const names = { endpoint: `mso-${id}-ep`, config: `mso-${id}-ec`, model: `mso-${id}-m` };
  const tags = options.tags ?? runTags(id);
  clock = options.createdAt;
  await sagemaker.createModel({
    modelName: names.model,
    image: 'img',
    modelDataUrl: 's3://b/m',
    environment: {},
    tags,
  });
  await sagemaker.createEndpointConfig({
    endpointConfigName: names.config,
    variant: { variantName: 'AllTraffic', modelName: names.model, instanceType: 'ml.g5.xlarge' },
    tags,
  });
  await sagemaker.createEndpoint({ endpointName: names.endpoint, endpointConfigName: names.config, tags });
  setStatus(names.endpoint, options.status ?? 'InService');
  sagemaker.calls.length = 0;
  return names;
}

function setStatus(endpointName: string, status: EndpointStatus): void {
  const endpoint = sagemaker.endpoints.get(endpointName);
  if (endpoint === undefined) throw new Error(`no endpoint ${endpointName} in the fake`);
  endpoint.status = status;
}

function sweep(dryRun?: boolean) {
  return sweepStaleResources(
    {
      maxAgeHours: MAX_AGE_HOURS,
      graceMinutes: GRACE_MINUTES,
      nowEpochMs: NOW,
      ...(dryRun === undefined ? {} : { dryRun }),
    },
    { host: sagemaker, scaling, runs, logger: silentLogger },
  );
}

describe('sweepStaleResources', () => {
  beforeEach(() => {
    clock = OLD;
    sagemaker = new FakeSageMaker({}, { now: () => clock });
    scaling = new FakeScalingRegistry(sagemaker);
    runs = new FakeRunActivity();
  });

  it('deletes a tagged endpoint whose run is not found once older than the maximum age, then its config, then its model', async () => {
    // Arrange
    const old = await deploy('old-run', { createdAt: OLD });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.calls.filter((call) => call.startsWith('Delete'))).toEqual([
      `DeleteEndpoint ${old.endpoint}`,
      `DeleteEndpointConfig ${old.config}`,
      `DeleteModel ${old.model}`,
    ]);
    expect(summary.deleted).toEqual({
      endpoints: [old.endpoint],
      endpointConfigs: [old.config],
      models: [old.model],
    });
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(summary.ageCutoff).toBe(new Date(NOW - MAX_AGE_HOURS * HOUR_MS).toISOString());
    expect(summary.graceCutoff).toBe(new Date(NOW - GRACE_MINUTES * MINUTE_MS).toISOString());
    expect(summary.notDeleted).toBe(0);
  });

  it('keeps resources without the project tag, however old', async () => {
    // Arrange
    const theirs = await deploy('theirs', { createdAt: OLD, tags: { team: 'search' } });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [theirs.endpoint],
      endpointConfigs: [theirs.config],
      models: [theirs.model],
    });
    expect(summary.kept).toEqual([
      { kind: 'endpoint', name: theirs.endpoint, reason: 'untagged' },
      { kind: 'endpoint-config', name: theirs.config, reason: 'untagged' },
      { kind: 'model', name: theirs.model, reason: 'untagged' },
    ]);
  });

  it('keeps resources tagged with another project value', async () => {
    // Arrange
    const other = await deploy('other', { createdAt: OLD, tags: { 'mso:project': 'another-tool' } });

    // Act
    await sweep();

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([other.endpoint]);
  });

  it('keeps resources created within the grace, asking nothing', async () => {
    // Arrange
    const recent = await deploy('recent-run', { createdAt: RECENT });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([recent.endpoint]);
    expect(summary.kept).toEqual([{ kind: 'endpoint', name: recent.endpoint, reason: 'too-young' }]);
    expect(summary.deleted).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    expect(runs.asked).toEqual([]);
  });

  it('keeps the resources of a run found nowhere until the maximum age: not yet visible, or another stack’s', async () => {
    // Arrange
    const unseen = await deploy('unseen-run', { createdAt: YOUNG });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([unseen.endpoint]);
    expect(summary.kept).toContainEqual({
      kind: 'endpoint',
      name: unseen.endpoint,
      reason: 'run-not-found',
      detail:
        "no execution of run unseen-run was found: swept by age only (not yet visible, or not this stack's)",
    });
    expect(summary.deleted).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('sweeps the resources of a run that ended more than the grace ago, however young', async () => {
    // Arrange: a two-hour-old run that failed 20 minutes ago and left everything.
    const ended = await deploy('ended-run', { createdAt: YOUNG });
    runs.ended('ended-run', NOW - 20 * MINUTE_MS);

    // Act
    const summary = await sweep();

    // Assert
    expect(summary.deleted).toEqual({
      endpoints: [ended.endpoint],
      endpointConfigs: [ended.config],
      models: [ended.model],
    });
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('keeps the resources of a run that ended within the grace', async () => {
    // Arrange: its in-flight steps may still be creating, the failed-run clean-up has not run yet.
    const ended = await deploy('just-ended', { createdAt: YOUNG });
    const endedAt = NOW - 5 * MINUTE_MS;
    runs.ended('just-ended', endedAt);

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([ended.endpoint]);
    expect(summary.kept).toContainEqual({
      kind: 'endpoint',
      name: ended.endpoint,
      reason: 'run-ended-recently',
      detail: `run just-ended ended at ${new Date(endedAt).toISOString()}, within the grace`,
    });
  });

  it('keeps the resources of a run redriven after it ended, however old', async () => {
    // Arrange
    const redriven = await deploy('redriven', { createdAt: OLD });
    runs.live('redriven', 'optimization');

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.leftovers().endpoints).toEqual([redriven.endpoint]);
    expect(summary.deleted).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  });

  it('keeps an old endpoint tagged mso:keep=true and, as in use, its config and model', async () => {
    // Arrange
    const kept = await deploy('kept', {
      createdAt: OLD,
      tags: { ...runTags('kept'), [KEEP_TAG.key]: 'true' },
    });

    // Act
    const summary = await sweep();

    // Assert
    expect(summary.kept).toContainEqual({ kind: 'endpoint', name: kept.endpoint, reason: 'keep-tag' });
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [kept.endpoint],
      endpointConfigs: [kept.config],
      models: [kept.model],
    });
  });

  it('deregisters an autoscaled variant before deleting its endpoint', async () => {
    // Arrange: an async endpoint whose run registered its autoscaling, then crashed.
    const old = await deploy('scaled', { createdAt: OLD });
    await scaling.configureAsyncScaling(old.endpoint, 'AllTraffic', {
      minInstanceCount: 0,
      maxInstanceCount: 2,
      targetBacklogPerInstance: 5,
      scaleInCooldownSeconds: 600,
      scaleOutCooldownSeconds: 60,
    });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.calls.slice(0, 2)).toEqual([
      `DeregisterScalableTarget endpoint/${old.endpoint}/variant/AllTraffic`,
      `DeleteEndpoint ${old.endpoint}`,
    ]);
    expect(summary.deregistered).toEqual([{ endpointName: old.endpoint, variantName: 'AllTraffic' }]);
  });

  it('reports nothing deregistered when the variant was never registered', async () => {
    // Arrange
    const old = await deploy('unscaled', { createdAt: OLD });

    // Act
    const summary = await sweep();

    // Assert
    expect(scaling.calls).toEqual([`DeregisterScalableTarget endpoint/${old.endpoint}/variant/AllTraffic`]);
    expect(summary.deregistered).toEqual([]);
    expect(summary.deleted.endpoints).toEqual([old.endpoint]);
  });

  it('skips a busy endpoint and keeps its config and model for the next sweep', async () => {
    // Arrange
    const busy = await deploy('busy', { createdAt: OLD, status: 'Updating' });

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(summary.skipped).toEqual([
      { kind: 'endpoint', name: busy.endpoint, reason: 'busy', detail: expect.stringContaining('Updating') },
      { kind: 'endpoint-config', name: busy.config, reason: 'in-use', detail: expect.any(String) },
      { kind: 'model', name: busy.model, reason: 'in-use', detail: expect.any(String) },
    ]);
  });

  it('keeps an old config and model that a young endpoint uses', async () => {
    // Arrange
    const old = await deploy('reused', { createdAt: OLD });
    await sagemaker.deleteEndpoint(old.endpoint);
    clock = YOUNG;
    await sagemaker.createEndpoint({
      endpointName: 'mso-reused-ep2',
      endpointConfigName: old.config,
      tags: runTags('reused'),
    });
    sagemaker.calls.length = 0;

    // Act
    const summary = await sweep();

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(summary.skipped.map((s) => [s.name, s.reason])).toEqual([
      [old.config, 'in-use'],
      [old.model, 'in-use'],
    ]);
  });

  it('deletes only the stale set when old and young runs share the account', async () => {
    // Arrange
    await deploy('old-run', { createdAt: OLD });
    const young = await deploy('young-run', { createdAt: YOUNG });

    // Act
    await sweep();

    // Assert
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [young.endpoint],
      endpointConfigs: [young.config],
      models: [young.model],
    });
  });

  it('deletes nothing on a dry run and reports what a sweep would delete', async () => {
    // Arrange
    const old = await deploy('old-run', { createdAt: OLD });
    scaling.registered.add(`endpoint/${old.endpoint}/variant/AllTraffic`);

    // Act
    const summary = await sweep(true);

    // Assert
    expect(sagemaker.calls).toEqual([]);
    expect(scaling.calls).toEqual([]);
    expect(summary.dryRun).toBe(true);
    expect(summary.deleted).toEqual({
      endpoints: [old.endpoint],
      endpointConfigs: [old.config],
      models: [old.model],
    });
    expect(sagemaker.leftovers().endpoints).toEqual([old.endpoint]);
  });

  it('reports a resource that vanished between the listing and its delete as already deleted', async () => {
    // Arrange
    const old = await deploy('racing', { createdAt: OLD });
    const listing = await sagemaker.listProjectResources({
      namePrefix: 'mso-',
      createdBeforeEpochMs: NOW - MAX_AGE_HOURS * HOUR_MS,
    });
    jest.spyOn(sagemaker, 'listProjectResources').mockResolvedValue(listing);
    sagemaker.models.delete(old.model);

    // Act
    const summary = await sweep();

    // Assert
    expect(summary.skipped).toEqual([
      { kind: 'model', name: old.model, reason: 'already-deleted', detail: expect.any(String) },
    ]);
    expect(summary.deleted.models).toEqual([]);
  });

  it('fails when a delete fails, after trying every other resource and keeping what depends on it', async () => {
    // Arrange
    const failing = await deploy('a-failing', { createdAt: OLD });
    const other = await deploy('b-other', { createdAt: OLD });
    jest
      .spyOn(sagemaker, 'deleteEndpointConfig')
      .mockImplementationOnce(() => Promise.reject(new Error('AccessDeniedException: not authorized')));

    // Act
    const sweeping = sweep();

    // Assert
    await expect(sweeping).rejects.toThrow(
      `endpoint-config ${failing.config} (Error: AccessDeniedException: not authorized)`,
    );
    await expect(sweeping).rejects.toBeInstanceOf(AggregateError);
    const error: unknown = await sweeping.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SweepIncompleteError);
    expect(notDeletedBy(error)).toBe(1);
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [],
      endpointConfigs: [failing.config],
      models: [failing.model],
    });
    expect(sagemaker.endpointConfigs.has(other.config)).toBe(false);
  });

  it('keeps every resource of a run still running in the async workflow, however old', async () => {
    // Arrange: a 30-hour-old async run, within the async workflow's 48-hour timeout.
    const live = await deploy('live-async', { createdAt: OLD });
    runs.live('live-async', 'async-inference');

    // Act
    const summary = await sweep();

    // Assert
    const detail = 'run live-async is still running in async-inference';
    expect(summary.kept).toEqual([
      { kind: 'endpoint', name: live.endpoint, reason: 'run-running', detail },
      { kind: 'endpoint-config', name: live.config, reason: 'run-running', detail },
      { kind: 'model', name: live.model, reason: 'run-running', detail },
    ]);
    expect(sagemaker.calls).toEqual([]);
    expect(scaling.calls).toEqual([]);
  });

  it('asks once per run past the grace, and never about recent, untagged or kept resources', async () => {
    // Arrange
    const ended = await deploy('ended-run', { createdAt: OLD });
    await deploy('recent-run', { createdAt: RECENT });
    await deploy('theirs', { createdAt: OLD, tags: { team: 'search' } });
    await deploy('kept', { createdAt: OLD, tags: { ...runTags('kept'), [KEEP_TAG.key]: 'true' } });

    // Act
    const summary = await sweep();

    // Assert
    expect(runs.asked).toEqual(['ended-run']);
    expect(summary.deleted).toEqual({
      endpoints: [ended.endpoint],
      endpointConfigs: [ended.config],
      models: [ended.model],
    });
  });

  it('sweeps an old project resource without a run id by age, asking nothing', async () => {
    // Arrange: deployed by hand with the project tag only.
    const manual = await deploy('manual', {
      createdAt: OLD,
      tags: { 'mso:project': 'model-serving-optimizer' },
    });

    // Act
    const summary = await sweep();

    // Assert
    expect(runs.asked).toEqual([]);
    expect(summary.deleted.endpoints).toEqual([manual.endpoint]);
  });

  it('keeps a run’s resources when its status cannot be read, sweeps the others, then fails', async () => {
    // Arrange
    const doubtful = await deploy('a-doubtful', { createdAt: OLD });
    const ended = await deploy('b-ended', { createdAt: OLD });
    runs.failures.set(
      'a-doubtful',
      Object.assign(new Error('not authorized to perform: states:DescribeExecution'), {
        name: 'AccessDeniedException',
      }),
    );

    // Act
    const sweeping = sweep();

    // Assert
    await expect(sweeping).rejects.toBeInstanceOf(AggregateError);
    await expect(sweeping).rejects.toThrow(
      `endpoint ${doubtful.endpoint} (the status of run a-doubtful could not be read ` +
        '(AccessDeniedException: not authorized to perform: states:DescribeExecution); kept until a sweep can read it)',
    );
    expect(sagemaker.leftovers()).toEqual({
      endpoints: [doubtful.endpoint],
      endpointConfigs: [doubtful.config],
      models: [doubtful.model],
    });
    expect(sagemaker.endpoints.has(ended.endpoint)).toBe(false);
    expect(runs.asked).toEqual(['a-doubtful', 'b-ended']);
    expect(notDeletedBy(await sweeping.catch((thrown: unknown) => thrown))).toBe(3);
  });

  it('fails when the maximum age is not above zero', async () => {
    // Act
    const sweeping = sweepStaleResources(
      { maxAgeHours: 0, graceMinutes: GRACE_MINUTES, nowEpochMs: NOW },
      { host: sagemaker, scaling, runs, logger: silentLogger },
    );

    // Assert
    await expect(sweeping).rejects.toThrow('Janitor maxAgeHours: got 0, expected a number of hours above 0');
  });

  it('fails when the grace is not above zero', async () => {
    // Act
    const sweeping = sweepStaleResources(
      { maxAgeHours: MAX_AGE_HOURS, graceMinutes: Number.NaN, nowEpochMs: NOW },
      { host: sagemaker, scaling, runs, logger: silentLogger },
    );

    // Assert
    await expect(sweeping).rejects.toThrow(
      'Janitor graceMinutes: got NaN, expected a number of minutes above 0',
    );
  });

  it('counts a sweep that failed before deciding anything as one resource not deleted', () => {
    expect(notDeletedBy(new Error('ListEndpoints throttled'))).toBe(1);
  });
});

describe('parseJanitorEvent', () => {
  it('reads a dry run request', () => {
    expect(parseJanitorEvent({ dryRun: true })).toEqual({ dryRun: true });
  });

  it('reads the empty input of a schedule as a real sweep', () => {
    expect(parseJanitorEvent({})).toEqual({});
    expect(parseJanitorEvent(undefined)).toEqual({});
  });

  it('fails when dryRun is not a boolean, naming the field', () => {
    expect(() => parseJanitorEvent({ dryRun: 'yes' })).toThrow('dryRun: got "yes", expected boolean');
  });
});
