import {
  type AsyncRunPlan,
  type AsyncRunSummary,
  type ItemResult,
  ItemStatuses,
} from '../../../../core/contracts/async-state.js';
import type { BacklogSample, ScalingActivity } from '../../../../core/ports/index.js';
import {
  type AsyncReport,
  type AsyncReportInput,
  buildAsyncReport,
} from '../../../../core/report/async-report.js';

/**
 * A deterministic async run on AWS for the report's tests and bench/report-render-check.ts: a burst
 * of 30 inputs from zero instances, scaled out to 1 then 3 instances, 27 completed, 2 failed and
 * 1 timed out, with CloudWatch's backlog once a minute. No clock, no randomness.
 */

export const RUN_ID = 'nightly-2026-05-23';
export const ENDPOINT = 'mso-nightly-2026-05-23-558c6ef5-ep-async';
const PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
/** The first invocation: second 0 of the timeline. */
export const ORIGIN_MS = Date.parse('2026-05-23T04:00:00.000Z');
export const SUMMARY_MS = ORIGIN_MS + 420_000;
const SECOND = 1000;

export function asyncPlan(overrides: Partial<AsyncRunPlan> = {}): AsyncRunPlan {
  return {
    runId: RUN_ID,
    name: 'nightly scoring',
    runPrefixUri: PREFIX,
    manifestUri: `${PREFIX}async/inputs.json`,
    itemCount: 30,
    batches: [{ batchIndex: 0, firstItemIndex: 0, itemCount: 30 }],
    batchConcurrency: 1,
    itemConcurrency: 40,
    invocation: {
      endpointName: ENDPOINT,
      contentType: 'application/json',
      invocationTimeoutSeconds: 900,
      requestTtlSeconds: 21_600,
      waitTimeoutSeconds: 26_100,
    },
    endpoint: {
      action: 'deploy',
      endpointName: ENDPOINT,
      endpointConfigName: 'mso-nightly-2026-05-23-558c6ef5-ec-async',
      modelName: 'mso-nightly-2026-05-23-558c6ef5-m-async',
      variantName: 'AllTraffic',
      keepAfterRun: false,
      deploy: {
        image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.6.0-cpu-py312',
        modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
        environment: {},
        instanceType: 'ml.c5.xlarge',
        maxInstanceCount: 3,
        targetBacklogPerInstance: 5,
      },
    },
    benchmark: { burstSize: 30 },
    tags: {},
    plannedAtEpochMs: ORIGIN_MS - 1_800_000,
    estimate: {
      totalUsd: 0.52,
      usdPerHour: 0.204,
      durationSeconds: 1500,
      worstDurationSeconds: 3600,
      assumptions: [],
    },
    ...overrides,
  };
}

/** Input i: invoked at second i ÷ 10, answered from second 100 on, every 10 s per instance. */
export function asyncItems(): ItemResult[] {
  return Array.from({ length: 30 }, (_, index): ItemResult => {
    const invokedAtEpochMs = ORIGIN_MS + index * 100;
    const inputLocation = `s3://mso-artifacts/inputs/cnn/input-${String(index + 1).padStart(4, '0')}.json`;
    if (index === 29) {
      return {
        itemIndex: index,
        inputLocation,
        status: ItemStatuses.timedOut,
        timeInSageMakerMs: null,
        totalMs: 400_000,
        invokedAtEpochMs,
        finishedAtEpochMs: invokedAtEpochMs + 400_000,
        failureReason: 'no notification within the wait timeout',
      };
    }
    const finishedAtEpochMs = ORIGIN_MS + 100_000 + index * 9_000;
    const failed = index === 7 || index === 19;
    return {
      itemIndex: index,
      inputLocation,
      status: failed ? ItemStatuses.failed : ItemStatuses.completed,
      timeInSageMakerMs: finishedAtEpochMs - invokedAtEpochMs - 200,
      totalMs: finishedAtEpochMs - invokedAtEpochMs,
      invokedAtEpochMs,
      finishedAtEpochMs,
      ...(failed
        ? { failureReason: 'ModelError: the model answered 500' }
        : { outputLocation: `${PREFIX}async/output/${index}.out` }),
    };
  });
}

/** Scale-out to 1 at second 90 and to 3 at second 150; one failed activity changes nothing. */
export function asyncActivities(): ScalingActivity[] {
  const activity = (
    startSeconds: number,
    endSeconds: number | undefined,
    toInstanceCount: number,
    status: string,
  ): ScalingActivity => ({
    startEpochMs: ORIGIN_MS + startSeconds * SECOND,
    ...(endSeconds === undefined ? {} : { endEpochMs: ORIGIN_MS + endSeconds * SECOND }),
    toInstanceCount,
    status,
    description: `Setting desired instance count to ${toInstanceCount}.`,
  });
  return [
    activity(-1200, -1100, 0, 'Successful'),
    activity(30, 90, 1, 'Successful'),
    activity(100, 150, 3, 'Successful'),
    activity(200, 210, 2, 'Failed'),
  ];
}

/** CloudWatch's ApproximateBacklogSize, each minute's maximum at the minute's start. */
export function asyncBacklog(): BacklogSample[] {
  return [30, 30, 24, 15, 7, 2, 1, 0].map((size, minute) => ({
    atEpochMs: ORIGIN_MS + minute * 60 * SECOND,
    size,
  }));
}

export function asyncSummary(overrides: Partial<AsyncRunSummary> = {}): AsyncRunSummary {
  return {
    runId: RUN_ID,
    name: 'nightly scoring',
    outcome: 'partial',
    endpointName: ENDPOINT,
    inputs: 30,
    completed: 27,
    failed: 2,
    timedOut: 1,
    makespanMs: 361_000,
    drainRatePerMinute: 6.7,
    totalMs: { p50: 227_000, p90: 335_000, p99: 349_200, max: 349_200 },
    timeInSageMakerMs: { p50: 226_800, p90: 334_800, p99: 349_000, max: 349_000 },
    summaryUri: `${PREFIX}async/summary.json`,
    summaryMarkdownUri: `${PREFIX}async/summary.md`,
    ...overrides,
  };
}

export function asyncReportInput(overrides: Partial<AsyncReportInput> = {}): AsyncReportInput {
  return {
    plan: asyncPlan(),
    summary: asyncSummary(),
    items: asyncItems(),
    activities: asyncActivities(),
    instancesAtStart: 0,
    backlog: asyncBacklog(),
    nowEpochMs: SUMMARY_MS,
    measuredLocally: false,
    ...overrides,
  };
}

export function asyncReport(overrides: Partial<AsyncReportInput> = {}): AsyncReport {
  return buildAsyncReport(asyncReportInput(overrides));
}
