import { z } from 'zod';
import { responseModeSchema } from './response-mode.js';
import { parseOrThrow } from './validation.js';

/**
 * SageMaker cuts a real-time invocation after 60 s: "A customer's model containers must respond to
 * requests within 60 seconds" (InvokeEndpoint API reference,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html, which
 * advises a 70 s socket timeout for 50-60 s models). Our client timeout must be longer, so a slow
 * container surfaces as the service's own `ModelError` (with the container's status) instead of
 * being cut by us and misfiled as a timeout of the load generator.
 */
export const SAGEMAKER_INVOCATION_LIMIT_MS = 60_000;

export const MAX_STEPS = 20;
export const MAX_WORKERS = 100;
/** Total in-flight requests a closed-model step may ask for, across workers. */
export const MAX_CONCURRENCY = 10_000;
/** Total arrival rate an open-model step may ask for, across workers. */
export const MAX_ARRIVAL_RATE = 100_000;
/**
 * The shortest measurement window: below a tenth of a second a step holds too few requests to
 * measure (and 1e-300 s holds none), yet the run would deploy endpoints for it.
 */
export const MIN_STEP_DURATION_SECONDS = 0.1;
/**
 * The longest a load test may last: a day, the optimization run's own execution timeout
 * (OPTIMIZATION_RUN_TIMEOUT_HOURS). Whether a plan's tests fit the run's history and time is
 * checked at planning (planning/history-model.ts), with every candidate counted.
 */
export const MAX_LOAD_TEST_SECONDS = 86_400;
/** Knee probes a plan may ask for: 8 halvings narrow a step's gap to 1/256. */
export const MAX_KNEE_PROBES = 8;
/** Measurements of the sustainable load a plan may ask for (repeats, the original included). */
export const MAX_REPEATS = 10;

function isStrictlyAscending(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value > (values[index - 1] ?? value));
}

/**
 * What a load test does. Step loads are totals across workers: with `workers: 4` and a closed step
 * of 16, each worker keeps 4 requests in flight; with an open step of 400 requests/s, each worker
 * issues 100/s. The report therefore reads the same whatever the number of workers.
 */
// Strict, as every object of the run input: a misspelt field (`stepDurationSecond`) is refused,
// naming it, rather than dropped for its default.
export const loadPlanSchema = z
  .strictObject({
    /** `closed`: a fixed number of requests in flight. `open`: a fixed arrival rate (requests/s). */
    model: z.enum(['closed', 'open']).default('closed'),
    /** Concurrency (closed) or requests per second (open), ascending. */
    steps: z.array(z.number().positive()).min(1).max(MAX_STEPS),
    /** Run before each step's window at the step's load; excluded from the results. */
    warmupSeconds: z.number().min(0).max(600).default(5),
    /** Length of each step's steady-state measurement window. */
    stepDurationSeconds: z
      .number()
      .min(MIN_STEP_DURATION_SECONDS, {
        message: `at least ${MIN_STEP_DURATION_SECONDS} s: a shorter window measures no request`,
      })
      .max(MAX_LOAD_TEST_SECONDS, {
        message: `at most ${MAX_LOAD_TEST_SECONDS} s (a day, the run's own timeout); steps longer than a load worker's invocation run as consecutive segments`,
      })
      .default(30),
    workers: z.number().int().min(1).max(MAX_WORKERS).default(1),
    /** Requests measured per step (total across workers); the window ends early when reached. */
    maxRequestsPerStep: z.number().int().positive().optional(),
    /** Requests of the whole run including warm-ups (total across workers); stops the run. */
    maxTotalRequests: z.number().int().positive().optional(),
    /** Hard bound on the run, counted from the (shared) start. */
    maxTotalSeconds: z.number().positive().max(MAX_LOAD_TEST_SECONDS).default(900),
    /** Client-side timeout of one invocation; see SAGEMAKER_INVOCATION_LIMIT_MS for the floor. */
    requestTimeoutMs: z
      .number()
      .int()
      .gt(
        SAGEMAKER_INVOCATION_LIMIT_MS,
        `more than SageMaker's ${SAGEMAKER_INVOCATION_LIMIT_MS} ms invocation limit, so a slow model is reported by SageMaker as a ModelError instead of being cut by the client`,
      )
      .max(900_000)
      .default(65_000),
    /**
     * When every planned step met the SLA without a plateau, go on with extra steps, each double
     * the last load, up to `maxLoad`, so that the candidate saturates and its sustainable TPS is a
     * measurement rather than the top step's (`scheduledLoads`). The SLA and plateau checks stop
     * them as they stop the planned steps; `maxTotalSeconds` bounds them too. Off when absent (no
     * default written into the parsed plan, so plans without it keep their size in the state).
     */
    extendUntilSaturated: z.boolean().optional(),
    /** The highest load an extension step may apply. @default 8 × the last planned step */
    maxLoad: z.number().positive().optional(),
    /**
     * Knee probes after the stepped plan (load-test/rounds.ts): bisect between the last step
     * that met the SLA and the first that breached it. 0: off. Absent: DEFAULT_KNEE_PROBES ("Validate
     * and plan" writes 0 when a step does not fit one worker invocation); no default in the parsed
     * plan, so plans without it keep their size in the state.
     */
    kneeProbes: z.number().int().min(0).max(MAX_KNEE_PROBES).optional(),
    /**
     * Measurements of the sustainable load, the original included: the rest run as repeat rounds
     * and the sustainable TPS is their median. Absent: DEFAULT_REPEATS (the local CLI sets
     * LOCAL_DEFAULT_REPEATS; "Validate and plan" writes 1 when a step does not fit one invocation).
     */
    repeats: z.number().int().min(1).max(MAX_REPEATS).optional(),
    /**
     * Run the repeats interleaved across candidates (load-test/rounds.ts `interleavesRepeats`):
     * each candidate's endpoint stays up after its own test until every candidate has run its
     * repeats, in rounds over all of them, so drift over the run reaches them alike. Absent: off on
     * AWS (the endpoints are billed while they wait); the local CLI turns it on when every
     * candidate's endpoint fits this machine at once. "Validate and plan" keeps it only when it
     * can run: a repeat to interleave, more than one candidate, the instance quotas.
     */
    interleaveRepeats: z.boolean().optional(),
    /**
     * A ramp instead of a constant rate (open model, one step): the warm-up runs at `fromTps`,
     * then over the window (`stepDurationSeconds`) the arrival rate rises linearly from `fromTps`
     * to the step's rate, and the step records a timeline of the window's buckets (load-test/timeline.ts).
     * The step's load, window and warm-up keep their meaning, so everything that plans on them
     * (duration, segments, cost, connections) holds for a ramp as it is. No rounds or extension:
     * a ramp is a test of the endpoint's scaling, not a search for its knee.
     */
    ramp: z
      .object({
        /** The arrival rate the ramp starts from (requests/s, all workers), below the step's. */
        fromTps: z.number().min(0).max(MAX_ARRIVAL_RATE),
      })
      .strict()
      .optional(),
    /** Stop stepping once a step fails to raise throughput by `plateauGain` over the best so far. */
    stopAtPlateau: z.boolean().default(true),
    /** 1.05: a step must raise TPS by at least 5 % to count as rising. */
    plateauGain: z.number().min(1).max(10).default(1.05),
    /**
     * Open model: requests in flight per worker before new arrivals queue (and are then counted as
     * late, or dropped once older than the request timeout). Transports get this many connections.
     */
    maxInFlight: z.number().int().min(1).max(MAX_CONCURRENCY).default(256),
    /** Open model: a start issued more than this after its scheduled time counts as late. */
    lateToleranceMs: z.number().min(0).max(60_000).default(10),
    /**
     * How each response is read (contracts/response-mode.ts): absent or `buffered`, whole;
     * `stream`, as it streams, timed per token. No default written into the parsed plan.
     */
    response: responseModeSchema.optional(),
  })
  .superRefine((plan, ctx) => {
    const issue = (path: PropertyKey[], message: string, input: unknown): void => {
      ctx.addIssue({ code: 'custom', path, message, input });
    };
    if (!isStrictlyAscending(plan.steps)) issue(['steps'], 'strictly ascending steps', plan.steps);
    for (const cap of ['maxRequestsPerStep', 'maxTotalRequests'] as const) {
      const value = plan[cap];
      if (value !== undefined && value < plan.workers) {
        issue([cap], `at least one request per worker (workers: ${plan.workers})`, value);
      }
    }
    plan.steps.forEach((load, index) => {
      if (plan.model === 'closed' && (!Number.isInteger(load) || load > MAX_CONCURRENCY)) {
        issue(
          ['steps', index],
          `a whole number 1..${MAX_CONCURRENCY}: closed-model steps are in-flight request counts`,
          load,
        );
      }
      if (plan.model === 'open' && load > MAX_ARRIVAL_RATE) {
        issue(
          ['steps', index],
          `at most ${MAX_ARRIVAL_RATE} requests/s: open-model steps are arrival rates`,
          load,
        );
      }
    });
    const last = plan.steps[plan.steps.length - 1] ?? 0;
    if (plan.ramp !== undefined) rampIssues(plan, plan.ramp.fromTps, issue);
    if (plan.maxLoad !== undefined) {
      const limit = plan.model === 'closed' ? MAX_CONCURRENCY : MAX_ARRIVAL_RATE;
      if (plan.maxLoad <= last || plan.maxLoad > limit) {
        issue(['maxLoad'], `more than the last step (${last}) and at most ${limit}`, plan.maxLoad);
      } else if (plan.model === 'closed' && !Number.isInteger(plan.maxLoad)) {
        issue(['maxLoad'], 'a whole number: closed-model loads are in-flight request counts', plan.maxLoad);
      }
    }
    const stepSeconds = plan.warmupSeconds + plan.stepDurationSeconds;
    // A step window alone over the limit is refused by its own bound above: one issue, not two.
    if (plan.stepDurationSeconds > MAX_LOAD_TEST_SECONDS) return;
    if (plan.maxTotalSeconds < stepSeconds) {
      issue(
        ['maxTotalSeconds'],
        `at least warmupSeconds + stepDurationSeconds (${stepSeconds} s): a run shorter than one step measures nothing`,
        plan.maxTotalSeconds,
      );
    }
  });

export type LoadPlan = z.infer<typeof loadPlanSchema>;

/** What a ramp refuses in the rest of the plan: it is one open-model step, run once. */
function rampIssues(
  plan: LoadPlan,
  fromTps: number,
  issue: (path: PropertyKey[], message: string, input: unknown) => void,
): void {
  if (plan.model !== 'open') {
    issue(['model'], '"open" with a ramp: a ramp is an arrival rate rising over time', plan.model);
  }
  const [to] = plan.steps;
  if (plan.steps.length !== 1 || to === undefined) {
    issue(['steps'], 'exactly one step with a ramp: the rate the ramp rises to', plan.steps);
  } else if (fromTps >= to) {
    issue(
      ['ramp', 'fromTps'],
      `below the step's rate (${to} requests/s): the ramp rises from fromTps to the step's rate`,
      fromTps,
    );
  }
  if (plan.extendUntilSaturated === true) {
    issue(['extendUntilSaturated'], 'absent or false with a ramp: a ramp runs its one step', true);
  }
  if (plan.kneeProbes !== undefined && plan.kneeProbes !== 0) {
    issue(['kneeProbes'], '0 (or absent) with a ramp: a ramp has no knee to probe', plan.kneeProbes);
  }
  if (plan.repeats !== undefined && plan.repeats !== 1) {
    issue(['repeats'], '1 (or absent) with a ramp: a ramp is measured once', plan.repeats);
  }
}
export type LoadPlanInput = z.input<typeof loadPlanSchema>;
export type LoadModel = LoadPlan['model'];

/** Validates a plan and applies defaults; throws InvalidRunInputError naming each bad field. */
export function parseLoadPlan(input: unknown, field = 'loadPlan'): LoadPlan {
  return parseOrThrow(loadPlanSchema, input, [field]);
}
