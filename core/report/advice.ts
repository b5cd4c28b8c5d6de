/**
 * Every piece of advice the product gives, in one table: each rule says when it fires and what it
 * says. Advice that does not fit its case misleads more than none ("try a compiled candidate" to
 * a compiled one), so a rule fires only on the facts it was written for, and every rule has a test
 * with the case it is for and one it must not fire on (test/core/report/advice.test.ts fails
 * when a rule of this table has no such pair).
 */
import type { CandidateVerdict } from '../contracts/index.js';

/** One piece of advice: when it fires, and its text for the case. */
export interface AdviceRule<Case> {
  readonly id: string;
  /** When the rule fires, in words. */
  readonly when: string;
  readonly fires: (subject: Case) => boolean;
  readonly text: (subject: Case) => string;
}

/** The texts of the rules that fire on `subject`, in the table's order. */
export function adviceFor<Case>(rules: readonly AdviceRule<Case>[], subject: Case): string[] {
  return rules.filter((rule) => rule.fires(subject)).map((rule) => rule.text(subject));
}

// ---------------------------------------------------------------------------------------------
// A candidate that did not meet the SLA

/** A miss within the run's noise: a re-run could meet the SLA. */
export interface NearMiss {
  /** The closest measured latency ÷ the SLA's bound (above 1). */
  readonly slaRatio: number;
  /** The run's noise on a p95, in % (95 %): a re-run's figure may differ by this much. */
  readonly noisePercent: number;
}

/** What the advice for one candidate depends on. */
export interface CandidateCase {
  readonly verdict: CandidateVerdict;
  readonly kind: 'realtime' | 'serverless' | 'existing';
  /** Served compiled (Neo) or optimized (an inference optimization job). */
  readonly compiled: boolean;
  /** Model errors among the requests of its first step. */
  readonly modelErrors: boolean;
  /** A `missed-sla` within the run's noise. */
  readonly nearMiss?: NearMiss;
  readonly measuredLocally: boolean;
}

/** A miss that more capacity could fix: missed the SLA on latency, the model answering. */
function capacityMiss(subject: CandidateCase): boolean {
  return subject.verdict === 'missed-sla' && !subject.modelErrors;
}

/** `1.03×` */
export function ratioText(ratio: number): string {
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(0)}×`;
}

/** The near-miss rule's text, shared by the report's reasons and the run's summary. */
export function nearMissText(nearMiss: NearMiss): string {
  return (
    `a near miss: ${ratioText(nearMiss.slaRatio)} the SLA's bound, within this run's noise ` +
    `(±${nearMiss.noisePercent} % on a p95), so a re-run may meet it; measure it again before ruling it out`
  );
}

/** Cases for a candidate's reason; the remedies of a capacity miss join into one "try …" clause. */
export const CANDIDATE_ADVICE: readonly AdviceRule<CandidateCase>[] = [
  {
    id: 'model-errors',
    when: 'the verdict is model errors, or a missed SLA whose first step had model errors',
    fires: (c) => c.verdict === 'model-errors' || (c.verdict === 'missed-sla' && c.modelErrors),
    text: () =>
      'check the model and the payload it is sent (content type, input names and shape); the endpoint’s logs have the model’s own message',
  },
  {
    id: 'stalled',
    when: 'the endpoint stalled under load',
    fires: (c) => c.verdict === 'stalled',
    text: () =>
      'a hang is not a capacity limit: look in the endpoint’s logs for a crash, a deadlock or an exhausted worker pool of the model server, then test it again',
  },
  {
    id: 'measurement-problem-aws',
    when: 'the figures could not be trusted on AWS (a load worker started late)',
    fires: (c) => c.verdict === 'measurement-problem' && !c.measuredLocally,
    text: () => 'run the candidate again (fewer workers, or Lambda concurrency reserved for the load worker)',
  },
  {
    id: 'measurement-problem-local',
    when: 'the figures could not be trusted in a local run (a load worker started late)',
    fires: (c) => c.verdict === 'measurement-problem' && c.measuredLocally,
    text: () => 'run the candidate again, with fewer load workers or on a quieter machine',
  },
  {
    id: 'near-miss',
    when: 'a missed SLA within the run’s measured noise',
    fires: (c) => capacityMiss(c) && c.nearMiss !== undefined,
    text: (c) => (c.nearMiss === undefined ? '' : nearMissText(c.nearMiss)),
  },
  ...missRemedies(),
];

/** The remedies of a capacity miss, each phrased to follow "try" or to stand after "or". */
function missRemedies(): AdviceRule<CandidateCase>[] {
  return [
    {
      id: 'larger-instances',
      when: 'a capacity miss on instances (not serverless)',
      fires: (c) => capacityMiss(c) && c.kind !== 'serverless',
      text: () => 'try larger or more instances',
    },
    {
      id: 'more-serverless-memory',
      when: 'a capacity miss of a serverless candidate',
      fires: (c) => capacityMiss(c) && c.kind === 'serverless',
      text: () => 'try more memory (serverless.memorySizeMb, which also gives more vCPUs)',
    },
    {
      id: 'compiled-candidate',
      when: 'a capacity miss of a real-time candidate that was neither compiled nor optimized',
      fires: (c) => capacityMiss(c) && c.kind === 'realtime' && !c.compiled,
      text: () => 'try a compiled candidate (compiledFor)',
    },
    {
      id: 'relax-sla',
      when: 'any capacity miss',
      fires: capacityMiss,
      text: () => 'relax the SLA',
    },
  ];
}

const REMEDY_IDS: ReadonlySet<string> = new Set(missRemedies().map((rule) => rule.id));

/** `try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA` */
function joinRemedies(remedies: readonly string[]): string {
  return remedies.join(', or ');
}

/** The advice that ends a candidate's reason, or undefined when no rule fires. */
export function candidateAdvice(subject: CandidateCase): string | undefined {
  const fired = CANDIDATE_ADVICE.filter((rule) => rule.fires(subject));
  const remedies = fired.filter((rule) => REMEDY_IDS.has(rule.id)).map((rule) => rule.text(subject));
  const others = fired.filter((rule) => !REMEDY_IDS.has(rule.id)).map((rule) => rule.text(subject));
  const parts = [...others, ...(remedies.length === 0 ? [] : [joinRemedies(remedies)])];
  return parts.length === 0 ? undefined : parts.join('; ');
}

// ---------------------------------------------------------------------------------------------
// A candidate that met the SLA at every step (its capacity not found)

export interface NotSaturatedCase {
  /** Why its load test ended (load-test/results.ts StopReason). */
  readonly stoppedBecause: string;
}

/** How to find the capacity: what ended the test decides what to change. */
export const NOT_SATURATED_ADVICE: readonly AdviceRule<NotSaturatedCase>[] = [
  {
    id: 'higher-load-steps',
    when: 'the load plan ran to its end with every step within the SLA',
    fires: (c) => c.stoppedBecause === 'completed',
    text: () => 'add higher load steps to find it',
  },
  {
    id: 'more-load-test-time',
    when: 'the load test’s deadline (loadPlan.maxTotalSeconds or the run’s) ended it first',
    fires: (c) => c.stoppedBecause === 'deadline',
    text: () => 'give the load test more time (loadPlan.maxTotalSeconds) or fewer, shorter steps to find it',
  },
  {
    id: 'more-requests',
    when: 'the request cap (loadPlan.maxTotalRequests) ended it first',
    fires: (c) => c.stoppedBecause === 'request-cap',
    text: () => 'raise loadPlan.maxTotalRequests to find it',
  },
];

// ---------------------------------------------------------------------------------------------
// A run without a recommendation

export interface MissedCandidateCase extends CandidateCase {
  readonly id: string;
}

/** What "no candidate met the SLA" advises: the near misses, then each remedy that fits any miss. */
export interface NoRecommendationCase {
  readonly missed: readonly MissedCandidateCase[];
}

export const NO_RECOMMENDATION_ADVICE: readonly AdviceRule<NoRecommendationCase>[] = [
  {
    id: 'run-near-misses',
    when: 'some candidate missed the SLA within the run’s noise',
    fires: (run) => run.missed.some((c) => capacityMiss(c) && c.nearMiss !== undefined),
    text: (run) => {
      const near = run.missed.filter((c) => capacityMiss(c) && c.nearMiss !== undefined);
      const ids = near.map((c) => `${c.id} (${ratioText(c.nearMiss?.slaRatio ?? 1)})`).join(', ');
      return `${near.length === 1 ? 'a near miss' : 'near misses'} within this run's noise: ${ids}, so a re-run may recommend ${near.length === 1 ? 'it' : 'one'}`;
    },
  },
];

/** The advice of a run where no candidate met the SLA: near misses, then the remedies that fit. */
export function noRecommendationAdvice(run: NoRecommendationCase): string | undefined {
  const remedies = missRemedies().flatMap((rule) => {
    const fits = run.missed.find((c) => rule.fires(c));
    return fits === undefined ? [] : [rule.text(fits)];
  });
  const parts = [
    ...adviceFor(NO_RECOMMENDATION_ADVICE, run),
    ...(remedies.length === 0 ? [] : [joinRemedies(remedies)]),
  ];
  return parts.length === 0 ? undefined : parts.join('; ');
}

// ---------------------------------------------------------------------------------------------
// The run's noise

export interface NoiseCase {
  /** A re-run's median TPS may differ by this much, in % (at `confidencePercent`). */
  readonly percent: number;
  readonly confidencePercent: number;
  readonly degreesOfFreedom: number;
}

/** Above this, in %, a re-run's median can move so far that the report says so. */
export const HIGH_NOISE_PERCENT = 10;
/** Below this, Student's t is above 3.2 (df 3): the interval is wide for want of measurements. */
const FEW_DEGREES_OF_FREEDOM = 3;

export const NOISE_ADVICE: readonly AdviceRule<NoiseCase>[] = [
  {
    id: 'noise-few-degrees',
    when: 'the noise is high and rests on fewer than 3 degrees of freedom',
    fires: (n) => n.percent > HIGH_NOISE_PERCENT && n.degreesOfFreedom < FEW_DEGREES_OF_FREEDOM,
    text: (n) =>
      `The run's noise rests on ${n.degreesOfFreedom} degree(s) of freedom, so a re-run's median TPS may differ by ` +
      `±${n.percent} % (${n.confidencePercent} %); more repeats (loadPlan.repeats) or more candidates narrow it.`,
  },
  {
    id: 'noise-high',
    when: 'the noise is high and rests on 3 degrees of freedom or more',
    fires: (n) => n.percent > HIGH_NOISE_PERCENT && n.degreesOfFreedom >= FEW_DEGREES_OF_FREEDOM,
    text: (n) =>
      `The figures moved a lot between repeats: a re-run's median TPS may differ by ±${n.percent} % (${n.confidencePercent} %), ` +
      'so differences smaller than that are noise; measure on a quieter machine, or with more repeats.',
  },
];

// ---------------------------------------------------------------------------------------------
// The machine of a local run

export interface BusyMachineCase {
  /** Why the machine counts as busy; empty when it was quiet. */
  readonly busyBecause: readonly string[];
}

export const BUSY_MACHINE_ADVICE: readonly AdviceRule<BusyMachineCase>[] = [
  {
    id: 'busy-machine',
    when: 'a local run’s machine was busy before or during the run',
    fires: (m) => m.busyBecause.length > 0,
    text: (m) =>
      `The machine was busy (${m.busyBecause.join('; ')}): a miss may be the machine's, not the candidate's. ` +
      'Other processes shared the cores the candidates were measured on, so throughput reads lower and latency higher ' +
      'than on a quiet machine; run again when it is quieter to confirm.',
  },
];

// ---------------------------------------------------------------------------------------------
// The local model host's CPU quota

export interface LocalQuotaCase {
  readonly endpointName: string;
  /** Threads the new endpoint needs: workers × threads per worker × instances. */
  readonly wanted: number;
  readonly workers: number;
  readonly threadsPerWorker: number;
  readonly instances: number;
  /** Endpoints creating or in service, and the threads they hold. */
  readonly activeEndpoints: number;
  readonly used: number;
  readonly maxThreads: number;
  readonly cores: number;
  readonly overcommit: number;
}

export const LOCAL_QUOTA_ADVICE: readonly AdviceRule<LocalQuotaCase>[] = [
  {
    id: 'quota-lower-concurrency',
    when: 'other endpoints hold threads and the new one fits the quota alone',
    fires: (q) => q.activeEndpoints > 0 && q.wanted <= q.maxThreads,
    text: () => 'lower maxConcurrentCandidates, so that fewer endpoints run at once',
  },
  {
    id: 'quota-endpoint-too-large',
    when: 'the new endpoint alone needs more threads than the quota',
    fires: (q) => q.wanted > q.maxThreads,
    text: (q) =>
      `the endpoint alone needs more than the ${q.maxThreads} threads this machine allows (${q.wanted} = ${q.workers} worker(s) × ` +
      `${q.threadsPerWorker} thread(s) × ${q.instances} instance(s)), whatever runs beside it: give it fewer instances, ` +
      'fewer workers (SAGEMAKER_MODEL_SERVER_WORKERS) or fewer threads (MODEL_SERVER_INTRA_OP_THREADS, OMP_NUM_THREADS), or run it on a machine with more cores',
  },
];

/** The quota error's message: what was asked against the limit, then the advice that fits. */
export function localQuotaMessage(q: LocalQuotaCase): string {
  return (
    `Local quota: endpoint ${q.endpointName} needs ${q.wanted} threads but ${q.activeEndpoints} endpoint(s) already use ` +
    `${q.used} of the ${q.maxThreads} this machine allows (${q.cores} cores × ${q.overcommit}); ` +
    adviceFor(LOCAL_QUOTA_ADVICE, q).join('; ')
  );
}

/** Every table, for the test that holds each rule to a firing and a non-firing case. */
export const ADVICE_TABLES = {
  candidate: CANDIDATE_ADVICE,
  notSaturated: NOT_SATURATED_ADVICE,
  noRecommendation: NO_RECOMMENDATION_ADVICE,
  noise: NOISE_ADVICE,
  busyMachine: BUSY_MACHINE_ADVICE,
  localQuota: LOCAL_QUOTA_ADVICE,
} as const;
