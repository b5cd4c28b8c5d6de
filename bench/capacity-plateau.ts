/**
 * Capacity plateau: SLA-aware stepping (closed model, real clock) against a stub endpoint of c
 * slots with a fixed service time s, whose capacity is exactly c / s. Stepping must stop on the
 * plateau and report a sustainable TPS within 0.95-1.0 of c / s. No network: the figure judged is
 * the stepping logic's, not the transport's.
 */
import { aggregateWorkerResults, systemClock, runLoadTest } from '../core/load-test/index.js';
import { SlotServer } from './support/stub-transports.js';
import type { BenchRow } from './support/report.js';
import { parseLoadPlan, parseSla } from '../core/contracts/index.js';

const SLOTS = 8;
const SERVICE_MS = 20;
const CAPACITY = SLOTS / (SERVICE_MS / 1000);

export async function benchCapacityPlateau(): Promise<BenchRow> {
  const plan = parseLoadPlan({ steps: [1, 2, 4, 8, 16, 32, 64], warmupSeconds: 0.5, stepDurationSeconds: 3 });
  const sla = parseSla({ p95LatencyMs: 500 });
  const worker = await runLoadTest({
    plan,
    sla,
    transport: new SlotServer(systemClock, SLOTS, SERVICE_MS * 1000),
    request: { body: new Uint8Array([1]), contentType: 'application/json' },
  });
  const result = aggregateWorkerResults([worker], sla, plan);
  const ratio = (result.sustainableTps ?? 0) / CAPACITY;
  return {
    name: `capacity plateau (c=${SLOTS}, s=${SERVICE_MS} ms)`,
    goal: '0.95-1.0 of c/s',
    measured: `${ratio.toFixed(3)} (${result.sustainableTps ?? 'none'} of ${CAPACITY} TPS at ${result.sustainableStep ?? '-'} in flight; stopped: ${result.stoppedBecause})`,
    pass: ratio >= 0.95 && ratio <= 1.0 && result.stoppedBecause === 'plateau',
    details: {
      capacity: CAPACITY,
      steps: result.steps.map((step) => ({ load: step.load, tps: step.tps, p95Ms: step.latencyMs.p95 })),
      stopDetail: result.stopDetail,
    },
  };
}
