import type { Report } from '../../../../core/report/report.js';
import { plannedCandidate, reportFrom, type SampleEntry, type StepShape } from './sample-report.js';

/**
 * Reports of environment sweeps, built the way a run builds them: a two-instance-type sweep of
 * worker and batch settings (12 candidates, one failed, one that missed the SLA) and a
 * 20-candidate sweep. Used by the unit tests and by bench/report-render-check.ts.
 */

export const WORKERS = 'SAGEMAKER_MODEL_SERVER_WORKERS';
export const BATCH = 'MODEL_SERVER_MAX_BATCH_SIZE';

interface SweepPoint {
  readonly instanceType: string;
  readonly usdPerHour: number;
  /** TPS at saturation. */
  readonly capacityTps: number;
  /** Latency of one request alone, in ms. */
  readonly latencyMs: number;
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * A closed-model candidate: each load step gets load ÷ latency requests per second up to the
 * capacity, and past it the latency grows with the queue (load ÷ TPS), as an endpoint's does.
 */
function sweepSteps(point: SweepPoint): StepShape[] {
  return [1, 2, 4, 8].map((load) => {
    const tps = Math.min((load * 1000) / point.latencyMs, point.capacityTps);
    const medianMs = (load * 1000) / tps;
    return { load, tps: Math.round(tps * 10) / 10, medianMs, tailMs: medianMs * 0.2 };
  });
}

function shortType(instanceType: string): string {
  return instanceType.replace(/^ml\./, '').replace('.', '-');
}

function entry(id: string, point: SweepPoint, failed = false): SampleEntry {
  const candidate = plannedCandidate(id, point.instanceType, point.usdPerHour, {
    environment: point.environment,
  });
  return failed
    ? {
        candidate,
        outcome: {
          candidateId: id,
          status: 'FAILED',
          error: {
            Error: 'EndpointFailedError',
            Cause: JSON.stringify({
              errorType: 'EndpointFailedError',
              errorMessage: `endpoint mso-run-ab12cd34-ep-${id} is Failed: ResourceLimitExceeded`,
            }),
          },
        },
      }
    : { candidate, steps: sweepSteps(point) };
}

const C5_TYPES = [
  { instanceType: 'ml.c5.xlarge', usdPerHour: 0.204, vcpus: 4, perWorkerTps: 130 },
  { instanceType: 'ml.c5.2xlarge', usdPerHour: 0.408, vcpus: 8, perWorkerTps: 140 },
] as const;

/**
 * 2 instance types × workers 1, 2, 4 × batch 1, 8: the workers (three levels) across, the
 * instance type down, one panel per batch size. ml.c5.xlarge with 4 workers and batch 8 contends
 * for its 4 vCPUs and misses the SLA from the first step; ml.c5.2xlarge with 2 workers and batch
 * 1 failed to deploy; ml.c5.xlarge with 4 workers and batch 1 is the cheapest per 1M.
 */
export function sweepReport(): Report {
  const entries = C5_TYPES.flatMap(({ instanceType, usdPerHour, vcpus, perWorkerTps }) =>
    ['1', '8'].flatMap((batch) =>
      ['1', '2', '4'].map((workers) => {
        const id = `${shortType(instanceType)}-w${workers}-b${batch}`;
        const contended = instanceType === 'ml.c5.xlarge' && workers === '4' && batch === '8';
        const batchGain = batch === '8' ? 1.6 : 1;
        return entry(
          id,
          {
            instanceType,
            usdPerHour,
            capacityTps: perWorkerTps * Math.min(Number(workers), vcpus) * batchGain,
            latencyMs: contended ? 25 : batch === '8' ? 11 : 8,
            environment: { [WORKERS]: workers, [BATCH]: batch },
          },
          instanceType === 'ml.c5.2xlarge' && workers === '2' && batch === '1',
        );
      }),
    ),
  );
  return reportFrom(entries);
}

const TWENTY_TYPES = [
  { instanceType: 'ml.c5.large', usdPerHour: 0.102, vcpus: 2 },
  { instanceType: 'ml.c5.xlarge', usdPerHour: 0.204, vcpus: 4 },
  { instanceType: 'ml.c5.2xlarge', usdPerHour: 0.408, vcpus: 8 },
  { instanceType: 'ml.m5.xlarge', usdPerHour: 0.23, vcpus: 4 },
  { instanceType: 'ml.c6i.xlarge', usdPerHour: 0.204, vcpus: 4 },
] as const;

/**
 * 20 candidates: 5 instance types × workers 1, 2, 4, 8. More workers than vCPUs contend (twice as
 * many miss the SLA from the first step); ml.c6i.xlarge is a little faster per worker than c5.
 */
export function twentyCandidateReport(): Report {
  const entries = TWENTY_TYPES.flatMap(({ instanceType, usdPerHour, vcpus }) =>
    ['1', '2', '4', '8'].map((workers) => {
      const count = Number(workers);
      const perWorker = instanceType === 'ml.c6i.xlarge' ? 140 : instanceType === 'ml.m5.xlarge' ? 120 : 130;
      return entry(`${shortType(instanceType)}-w${workers}`, {
        instanceType,
        usdPerHour,
        capacityTps: perWorker * Math.min(count, vcpus),
        latencyMs: count >= 2 * vcpus ? 25 : 8 + count / 2,
        environment: { [WORKERS]: workers },
      });
    }),
  );
  return reportFrom(entries);
}
