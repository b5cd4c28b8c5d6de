import { beforeAll, describe, expect, it } from '@jest/globals';
import { TransientServiceError } from '../../../../core/contracts/errors.js';
import type { RecordRampEvent, RampRequest } from '../../../../core/contracts/optimization-state.js';
import type { LoadTestResult, TimelineBucket } from '../../../../core/load-test/index.js';
import type { EndpointInstanceSeriesReader } from '../../../../core/ports/index.js';
import { recordRamp, type RecordRampDeps } from '../../../../core/steps/optimization/record-ramp.js';
import type { Report } from '../../../../core/report/report.js';
import { type InstanceCountPoint, rampOutcome } from '../../../../core/serving/ramp.js';
import { rampCandidate, rampLoadPlan, scalingRequestsFor } from '../../../../core/serving/ramp-test.js';
import { scalingPolicyFor } from '../../../../core/serving/scaling-policy.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import {
  brokenTimeline,
  heldTimeline,
  RAMP_INSTANCES,
  RAMP_START_MS,
  rampInput,
  serveTargetReport,
} from '../../../../bench/fixtures/ramp-reports.js';
import {
  plannedCandidate,
  SAMPLE_LOAD_PLAN,
  SAMPLE_SLA,
  stepResult,
} from '../../../../bench/fixtures/sample-report.js';

/**
 * "Record ramp" over the fixtures of report/support/ramp-reports.ts: the winner `large`
 * (ml.c5.large, 100 TPS per instance, headroom 0.7) ramped on 2–9 instances from 140 to 600 TPS over
 * ten 60 s buckets, after a 5 s warm-up; the instances scale out 2 → 4 → 7 → 9.
 */

const RUN_ID = 'nightly-2026-11-22';
const PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
const LOCATIONS = {
  json: `${PREFIX}report.json`,
  markdown: `${PREFIX}report.md`,
  html: `${PREFIX}report.html`,
};
const RESULT_URI = `${PREFIX}load-tests/large-ramp/result.json`;
const SLA = { ...SAMPLE_SLA, targetTps: 600 };
const SERIES_SOURCE = 'from the local endpoint’s front (in service and starting)';

const WINNER = plannedCandidate('large', 'ml.c5.large', 0.102);
const POLICY = scalingPolicyFor({
  endpointName: WINNER.endpointName,
  variantName: 'AllTraffic',
  perInstanceTps: 100,
  headroom: 0.7,
  minInstances: 2,
  peakTps: 600,
  scaleInCooldownSeconds: 300,
  scaleOutCooldownSeconds: 60,
});
const CANDIDATE = rampCandidate(RUN_ID, WINNER, 2);
const REQUEST: RampRequest = {
  candidate: CANDIDATE,
  loadPlan: rampLoadPlan(SAMPLE_LOAD_PLAN, { fromTps: 140, toTps: 600, seconds: 600, workers: 1 }),
  fromTps: 140,
  toTps: 600,
  perInstanceTps: 100,
  headroom: 0.7,
  minInstances: 2,
  maxInstances: 9,
  targetInvocationsPerInstance: 4200,
  scaling: scalingRequestsFor(POLICY, CANDIDATE.endpointName, 'AllTraffic'),
};

/** The report "Recommend" wrote: "Serve 600 TPS" on ml.c5.large, no ramp yet. */
const REPORT: Report = serveTargetReport();

/** The aggregate's merged result: one ramp step, its window starting after the 5 s warm-up. */
function rampResult(timeline: readonly TimelineBucket[] | undefined): LoadTestResult {
  const step = stepResult({ load: 600, tps: 380, medianMs: 10, tailMs: 2 }, SLA);
  return {
    schemaVersion: 1,
    model: 'open',
    workers: 1,
    startEpochMs: RAMP_START_MS - 5000,
    finishedEpochMs: RAMP_START_MS + 600_000,
    steps: [{ ...step, loadKind: 'arrival-rate', ...(timeline === undefined ? {} : { timeline }) }],
    sustainableTps: 380,
    sustainableStep: 600,
    meetsTargetTps: false,
    stoppedBecause: timeline === undefined ? 'aborted' : 'completed',
    stopDetail:
      timeline === undefined
        ? 'cancelled during the warm-up of step 1; that step is left out'
        : 'all steps ran',
  };
}

function storeWith(result?: LoadTestResult): MemoryObjectStore {
  const store = new MemoryObjectStore().seed(LOCATIONS.json, JSON.stringify(REPORT));
  return result === undefined ? store : store.seed(RESULT_URI, JSON.stringify(result));
}

function measuredEvent(): RecordRampEvent {
  return {
    plan: { runId: RUN_ID, sla: SLA },
    summary: { report: LOCATIONS, rampRequest: REQUEST },
    outcome: { status: 'MEASURED', resultUri: RESULT_URI },
  };
}

/** A series reader that records what it was asked and answers `points` (or throws `error`). */
function seriesReader(answer: readonly InstanceCountPoint[] | Error = RAMP_INSTANCES) {
  const calls: unknown[][] = [];
  const series: EndpointInstanceSeriesReader = {
    instanceSeries: (...args) => {
      calls.push(args);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  return { series, calls };
}

function deps(store: MemoryObjectStore, series = seriesReader().series): RecordRampDeps {
  return { store, logger: silentLogger, series, seriesSource: SERIES_SOURCE };
}

function readReport(store: MemoryObjectStore): Report {
  const object = store.objects.get(LOCATIONS.json);
  if (object === undefined) throw new Error('no report.json');
  return JSON.parse(new TextDecoder().decode(object.body)) as Report;
}

function text(store: MemoryObjectStore, uri: string): string {
  return new TextDecoder().decode(store.objects.get(uri)?.body);
}

/** What every ramp of REQUEST records, whatever its verdict. */
const RAMP_FIGURES = {
  candidateId: 'large',
  instanceType: 'ml.c5.large',
  fromTps: 140,
  toTps: 600,
  minInstances: 2,
  maxInstances: 9,
  targetInvocationsPerInstance: 4200,
};

const HELD_NOTE =
  'held: the SLA held through the ramp of 2–9 × ml.c5.large from 140 to 600 TPS over 600 s; ' +
  '2→4 at 200 s (200 s after its trigger), 4→7 at 400 s (160 s after its trigger), 7→9 at 540 s (60 s after its trigger)';

describe('recordRamp of a held ramp', () => {
  // One recording for the tests that only read what it returned, wrote and asked: each recording
  // renders the report's charts again.
  let store: MemoryObjectStore;
  let reader: ReturnType<typeof seriesReader>;
  let verdict: Awaited<ReturnType<typeof recordRamp>>;

  beforeAll(async () => {
    // Prepare
    store = storeWith(rampResult(heldTimeline()));
    reader = seriesReader();

    // Act
    verdict = await recordRamp(measuredEvent(), deps(store, reader.series));
  });

  it('judges a ramp whose buckets all met the SLA held, and returns the verdict', () => {
    // Assert
    expect(verdict).toEqual({ status: 'held', note: HELD_NOTE });
  });

  it('writes the held ramp into report.json’s serveTarget, the rest of the report kept', () => {
    // Assert
    expect(readReport(store)).toEqual({
      ...REPORT,
      serveTarget: {
        ...REPORT.serveTarget,
        ramp: {
          ...RAMP_FIGURES,
          status: 'held',
          outcome: rampOutcome(rampInput({ sla: SLA })),
          instancesNote: SERIES_SOURCE,
          note: HELD_NOTE,
        },
      },
    });
  });

  it('rewrites report.md and report.html with the ramp', () => {
    // Assert
    expect(text(store, LOCATIONS.markdown)).toContain('### Ramp test\n\nHeld: the SLA held through the ramp');
    expect(text(store, LOCATIONS.html)).toContain(
      '<h3>Ramp test</h3>\n<p>Held: the SLA held through the ramp',
    );
    expect(store.objects.get(LOCATIONS.html)?.contentType).toBe('text/html');
  });

  it('reads the instances over the ramp’s window, after the warm-up, from the deployed minimum', () => {
    // Assert: the result starts 5 s before the ramp (the warm-up); the ramp lasts 600 s.
    expect(reader.calls).toEqual([
      [CANDIDATE.endpointName, RAMP_START_MS, RAMP_START_MS + 600_000, { initialInService: 2 }],
    ]);
  });
});

describe('recordRamp', () => {
  it('judges a ramp with buckets over the SLA not held, with the minutes, the first breach and the headroom', async () => {
    // Prepare: buckets 1–3 over p95 20 ms, 5 % errors in bucket 6.
    const store = storeWith(rampResult(brokenTimeline()));

    // Act
    const verdict = await recordRamp(measuredEvent(), deps(store));

    // Assert
    const outcome = rampOutcome(rampInput({ sla: SLA, timeline: brokenTimeline() }));
    expect(verdict).toEqual({
      status: 'not-held',
      note:
        'not held: the SLA broke for 4 min during the ramp of 2–9 × ml.c5.large from 140 to 600 TPS over 600 s ' +
        '(first from 60 s: p95 45.000 ms > SLA 20 ms; p99 80.000 ms > SLA 40 ms); ' +
        '2→4 at 200 s (200 s after its trigger), 4→7 at 400 s (160 s after its trigger), 7→9 at 540 s (60 s after its trigger); ' +
        'headroom 0.2 would have held: 1 − 0.767 TPS/s × 200 s ÷ (2 × 100 TPS) = 0.233',
    });
    expect(readReport(store).serveTarget?.ramp).toEqual({
      ...RAMP_FIGURES,
      status: 'not-held',
      outcome,
      instancesNote: SERIES_SOURCE,
      note: verdict.note,
    });
  });

  it('records the ramp failed with the caught error, without reading a result or the instances', async () => {
    // Prepare
    const store = storeWith();
    const reader = seriesReader();
    const event: RecordRampEvent = {
      plan: measuredEvent().plan,
      summary: measuredEvent().summary,
      error: {
        Error: 'WorkerCrashed',
        Cause: JSON.stringify({ errorMessage: 'worker lost mid-ramp', errorType: 'WorkerCrashed' }),
      },
    };

    // Act
    const verdict = await recordRamp(event, deps(store, reader.series));

    // Assert
    const note = 'the ramp of 2–9 × ml.c5.large failed: WorkerCrashed: worker lost mid-ramp';
    expect(verdict).toEqual({ status: 'failed', note });
    expect(readReport(store).serveTarget?.ramp).toEqual({ ...RAMP_FIGURES, status: 'failed', note });
    expect(reader.calls).toEqual([]);
  });

  it('fails when the aggregate asked for a re-run: the ramp is not judged, the note says why', async () => {
    // Prepare
    const store = storeWith(rampResult(heldTimeline()));
    const event: RecordRampEvent = { ...measuredEvent(), outcome: { status: 'RERUN' } };

    // Act
    const verdict = await recordRamp(event, deps(store));

    // Assert
    expect(verdict).toEqual({
      status: 'failed',
      note: "the ramp's load test could not be judged (RERUN): no result stored",
    });
  });

  it('fails when the aggregate found a measurement problem, with the problem in the note', async () => {
    // Prepare
    const store = storeWith(rampResult(heldTimeline()));
    const event: RecordRampEvent = {
      ...measuredEvent(),
      outcome: {
        status: 'MEASUREMENT_PROBLEM',
        resultUri: RESULT_URI,
        measurementProblem: 'worker 1 started 12 s late on the re-run',
      },
    };

    // Act
    const verdict = await recordRamp(event, deps(store));

    // Assert
    expect(verdict).toEqual({
      status: 'failed',
      note: "the ramp's load test could not be judged (MEASUREMENT_PROBLEM): worker 1 started 12 s late on the re-run",
    });
    expect(readReport(store).serveTarget?.ramp?.outcome).toBeUndefined();
  });

  it('fails when the result has no timeline: the load test stopped before its window', async () => {
    // Prepare
    const store = storeWith(rampResult(undefined));

    // Act
    const verdict = await recordRamp(measuredEvent(), deps(store));

    // Assert
    expect(verdict).toEqual({
      status: 'failed',
      note: "the ramp's load test stopped before its window (aborted: cancelled during the warm-up of step 1; that step is left out)",
    });
  });

  it('starts a series whose first point comes after the ramp’s start at the deployed minimum', async () => {
    // Prepare: as scaling activities show it, nothing before the first scale-out.
    const store = storeWith(rampResult(heldTimeline()));
    const afterStart = RAMP_INSTANCES.slice(1);
    const reader = seriesReader(afterStart);

    // Act
    await recordRamp(measuredEvent(), deps(store, reader.series));

    // Assert
    const instances = [{ atEpochMs: RAMP_START_MS, inService: 2 }, ...afterStart];
    expect(readReport(store).serveTarget?.ramp?.outcome).toEqual(
      rampOutcome(rampInput({ sla: SLA, instances })),
    );
  });

  it('judges the SLA from the timeline when the instances cannot be read, and says no scale-out is known', async () => {
    // Prepare
    const store = storeWith(rampResult(heldTimeline()));
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });

    // Act
    const verdict = await recordRamp(measuredEvent(), deps(store, seriesReader(throttled).series));

    // Assert
    const ramp = readReport(store).serveTarget?.ramp;
    expect(verdict.status).toBe('held');
    expect(ramp?.instancesNote).toBe(
      'not read (ThrottlingException: Rate exceeded): the chart shows the minimum throughout and no scale-out',
    );
    expect(ramp?.outcome?.scaleOuts).toEqual([]);
    expect(ramp?.outcome?.chart.map((point) => point.inService)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
  });

  it('fails when the instances are throttled past the adapter’s retries, so that the step retries', async () => {
    // Prepare
    const store = storeWith(rampResult(heldTimeline()));
    const throttled = new TransientServiceError('DescribeScalingActivities for x failed', {});

    // Act
    const act = recordRamp(measuredEvent(), deps(store, seriesReader(throttled).series));

    // Assert
    await expect(act).rejects.toBe(throttled);
  });

  it('asks for a re-test at the advised headroom when the ramp broke the SLA and the plan allows one', async () => {
    // Prepare
    const store = storeWith(rampResult(brokenTimeline()));
    const event = {
      ...measuredEvent(),
      plan: { runId: RUN_ID, sla: SLA, rampTest: { ...RAMP_PLAN, retests: 1 } },
    };

    // Act
    const verdict = await recordRamp(event, deps(store));

    // Assert: headroom 0.2 holds the 200 s lag; 100 TPS × 0.2 per instance, 2 to 30 instances for 600 TPS.
    expect(verdict.status).toBe('not-held');
    expect(verdict.note).toMatch(
      /; re-testing at headroom 0\.2 from 2 instances \(2–30, target 1200 invocations per instance per minute\)$/,
    );
    expect(verdict.retest).toMatchObject({
      attempt: 2,
      headroom: 0.2,
      fromTps: 40,
      minInstances: 2,
      maxInstances: 30,
      candidate: { id: 'large-ramp-2', initialInstanceCount: 2 },
      loadPlan: { ramp: { fromTps: 40 } },
    });
    expect(readReport(store).serveTarget?.ramp?.note).toBe(verdict.note);
  });

  it('asks for no re-test once the re-test has run, and keeps the ramp before it', async () => {
    // Prepare: the first ramp (not held) is in the report; this is its re-test.
    const first = await (async () => {
      const store = storeWith(rampResult(brokenTimeline()));
      await recordRamp(measuredEvent(), deps(store));
      return readReport(store);
    })();
    const store = new MemoryObjectStore()
      .seed(LOCATIONS.json, JSON.stringify(first))
      .seed(RESULT_URI, JSON.stringify(rampResult(brokenTimeline())));
    const event = {
      ...measuredEvent(),
      plan: { runId: RUN_ID, sla: SLA, rampTest: { ...RAMP_PLAN, retests: 1 } },
      summary: { report: LOCATIONS, rampRequest: { ...REQUEST, attempt: 2 } },
    };

    // Act
    const verdict = await recordRamp(event, deps(store));

    // Assert
    expect(verdict.retest).toBeUndefined();
    const ramp = readReport(store).serveTarget?.ramp;
    expect(ramp?.previous).toEqual(first.serveTarget?.ramp);
    expect(ramp?.note).not.toContain('re-testing');
  });

  it('asks for no re-test when the plan allows none', async () => {
    // Prepare
    const store = storeWith(rampResult(brokenTimeline()));

    // Act
    const verdict = await recordRamp(measuredEvent(), deps(store));

    // Assert
    expect(verdict.retest).toBeUndefined();
  });
});

const RAMP_PLAN = { enabled: true, seconds: 600, workers: 1 };
