import { failureReasonOf, VARIANT_NAME } from '../../contracts/index.js';
import type { RecordProofEvent, ProofOutcome, ProofRequest } from '../../contracts/index.js';
import {
  aggregateWorkerResults,
  describeLateWorkers,
  lateWorkers,
  type LoadTestResult,
} from '../../load-test/index.js';
import type { InvocationsPerInstanceReader, Logger, ObjectStore } from '../../ports/index.js';
import type { Report } from '../../report/index.js';
import { readStoredReport, writeStoredReport, readInstanceSpread } from '../../report/index.js';
import {
  correctedInstances,
  correctedRequest,
  judgeProof,
  type ServeTargetProof,
} from '../../serving/index.js';
import type { InstanceSpread } from '../../serving/index.js';
import { readWorkerResult } from './load-test-results.js';

export interface RecordProofDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** How the proof's requests spread over the instances; none: the report says so. */
  readonly invocations?: InvocationsPerInstanceReader;
}

/**
 * States "Record proof" and "Record failed proof": the proof's verdict into report.json (its
 * `serveTarget.proof`), report.md and report.html, rewritten from the stored report.json. After a
 * run of the workers, their results are merged (histograms added, never averaged) into the one step
 * at the target rate and judged against the SLA; a late worker makes the step describe less load
 * than the target, so the proof is `failed` with why rather than judged. After a failure (`error`),
 * the proof is `failed` with the error. The state output (`summary.proof`) is the verdict alone.
 */
export async function recordProof(event: RecordProofEvent, deps: RecordProofDeps): Promise<ProofOutcome> {
  const request = event.summary.proofRequest;
  const report = await readStoredReport(deps.store, event.summary.report.json);
  const st = report.serveTarget;
  const what = `${request.instances} × ${request.candidate.instanceType ?? request.candidate.id}`;
  const base = {
    candidateId: request.candidate.proofOf ?? request.candidate.id,
    instances: request.instances,
    ...(request.candidate.instanceType === undefined ? {} : { instanceType: request.candidate.instanceType }),
    targetTps: request.targetTps,
  };
  let proof: ServeTargetProof;
  if (event.error !== undefined || event.workers === undefined || event.deployment === undefined) {
    proof = {
      ...base,
      status: 'failed',
      note: `not proven: the proof of ${what} failed: ${failureReasonOf(event.error)}`,
    };
  } else {
    const results = await Promise.all(event.workers.map((w) => readWorkerResult(deps.store, w.resultUri)));
    const late = lateWorkers(results, request.loadPlan);
    const merged: LoadTestResult | undefined =
      late.length === 0 ? aggregateWorkerResults(results, event.plan.sla, request.loadPlan) : undefined;
    const step = merged?.steps[0];
    const verdict =
      merged === undefined
        ? {
            status: 'failed' as const,
            note: `not proven: ${describeLateWorkers(late, request.loadPlan)}, so the step carried less than the target`,
          }
        : judgeProof(step, request, what);
    const spread = await readSpread(event, merged, deps);
    proof = {
      ...base,
      status: verdict.status,
      ...(step === undefined
        ? {}
        : {
            measured: {
              tps: round(step.tps, 1),
              p95Ms: round(step.latencyMs.p95, 2),
              p99Ms: round(step.latencyMs.p99, 2),
              errorRate: round(step.errorRate, 4),
              workers: step.workers,
            },
          }),
      ...spread,
      note: verdict.note,
    };
  }
  // A corrected proof keeps the one before it (the report's, which this one follows).
  const earlier = (request.attempt ?? 1) > 1 ? st?.proof : undefined;
  if (earlier !== undefined) {
    const { previous: _older, ...kept } = earlier;
    const deploy =
      proof.status === 'held'
        ? `; deploy ${proof.instances ?? '?'}, not the ${kept.instances ?? '?'} sized from the measurement`
        : '';
    proof = { ...proof, note: `${proof.note}${deploy}`, previous: kept };
  }
  const correction = correctionOf(event, proof);
  const updated: Report =
    st === undefined
      ? report
      : {
          ...report,
          serveTarget: { ...st, proven: proof.status === 'held', provenNote: proof.note, proof },
        };
  await writeStoredReport(deps.store, event.summary.report, updated);
  deps.logger.info('Proof recorded', {
    runId: event.plan.runId,
    status: proof.status,
    instances: proof.instances,
    targetTps: proof.targetTps,
  });
  return {
    status: proof.status,
    ...(proof.candidateId === undefined ? {} : { candidateId: proof.candidateId }),
    ...(proof.instances === undefined ? {} : { instances: proof.instances }),
    note:
      correction === undefined
        ? proof.note
        : `${proof.note}; correcting the count: proving ${correction.instances} instances`,
    ...(correction === undefined ? {} : { correction }),
  };
}

/**
 * The proof with a corrected count to run next, or undefined: only after a proof that ran and did
 * not hold, while the plan allows a correction (`prove.corrections`), and when a larger count fits
 * the account's quota for the type.
 */
function correctionOf(event: RecordProofEvent, proof: ServeTargetProof): ProofRequest | undefined {
  const request = event.summary.proofRequest;
  if (proof.status !== 'not-held') return undefined;
  if ((request.attempt ?? 1) > (event.plan.prove?.corrections ?? 0)) return undefined;
  const type = request.candidate.instanceType;
  const quota = type === undefined ? undefined : event.plan.instanceQuotas?.[type];
  const instances = correctedInstances(request, proof.measured?.tps, quota);
  return instances === undefined ? undefined : correctedRequest(event.plan.runId, request, instances);
}

/** The proof's per-instance spread over the test's window (report/read-instance-spread.ts). */
async function readSpread(
  event: RecordProofEvent,
  merged: LoadTestResult | undefined,
  deps: RecordProofDeps,
): Promise<InstanceSpread> {
  const { deployment } = event;
  if (deployment === undefined || merged === undefined) {
    return { perInstanceNote: 'not read: no per-instance reader here' };
  }
  return readInstanceSpread(
    deps.invocations,
    {
      endpointName: deployment.endpointName,
      variantName: deployment.variantName ?? VARIANT_NAME,
      startEpochMs: merged.startEpochMs,
      endEpochMs: merged.finishedEpochMs,
    },
    deps.logger,
    'the proof’s window',
  );
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
