import { z } from 'zod';
import { InvalidRunInputError } from '../contracts/errors.js';
import type { InputIssue } from '../contracts/errors.js';

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

function isStrictlyAscending(values: readonly number[]): boolean {
  return values.every((value, index) => index === 0 || value > (values[index - 1] ?? value));
}

/**
 * What a load test does. Step loads are totals across workers: with `workers: 4` and a closed step
 * of 16, each worker keeps 4 requests in flight; with an open step of 400 requests/s, each worker
 * issues 100/s. The report therefore reads the same whatever the number of workers.
 */
export const loadPlanSchema = z
  .object({
    /** `closed`: a fixed number of requests in flight. `open`: a fixed arrival rate (requests/s). */
    model: z.enum(['closed', 'open']).default('closed'),
    /** Concurrency (closed) or requests per second (open), ascending. */
    steps: z.array(z.number().positive()).min(1).max(MAX_STEPS),
    /** Run before each step's window at the step's load; excluded from the results. */
    warmupSeconds: z.number().min(0).max(600).default(5),
    /** Length of each step's steady-state measurement window. */
    stepDurationSeconds: z.number().positive().max(3600).default(30),
    workers: z.number().int().min(1).max(MAX_WORKERS).default(1),
    /** Requests measured per step (total across workers); the window ends early when reached. */
    maxRequestsPerStep: z.number().int().positive().optional(),
    /** Requests of the whole run including warm-ups (total across workers); stops the run. */
    maxTotalRequests: z.number().int().positive().optional(),
    /** Hard bound on the run, counted from the (shared) start. */
    maxTotalSeconds: z.number().positive().max(86_400).default(900),
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
  })
  .superRefine((plan, ctx) => {
    if (!isStrictlyAscending(plan.steps)) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps'],
        message: `steps must be strictly ascending, got [${plan.steps.join(', ')}]`,
      });
    }
    for (const cap of ['maxRequestsPerStep', 'maxTotalRequests'] as const) {
      const value = plan[cap];
      if (value !== undefined && value < plan.workers) {
        ctx.addIssue({
          code: 'custom',
          path: [cap],
          message: `at least one request per worker (workers: ${plan.workers}), got ${value}`,
        });
      }
    }
    plan.steps.forEach((load, index) => {
      if (plan.model === 'closed' && (!Number.isInteger(load) || load > MAX_CONCURRENCY)) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index],
          message: `closed-model steps are in-flight request counts: expected a whole number 1..${MAX_CONCURRENCY}, got ${load}`,
        });
      }
      if (plan.model === 'open' && load > MAX_ARRIVAL_RATE) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index],
          message: `open-model steps are arrival rates: expected at most ${MAX_ARRIVAL_RATE} requests/s, got ${load}`,
        });
      }
    });
  });

export type LoadPlan = z.infer<typeof loadPlanSchema>;
export type LoadPlanInput = z.input<typeof loadPlanSchema>;
export type LoadModel = LoadPlan['model'];

/** The latency SLA a candidate must meet at a step for that step to count as sustainable. */
export const slaSchema = z
  .object({
    p95LatencyMs: z.number().positive().optional(),
    p99LatencyMs: z.number().positive().optional(),
    /** Fraction of failed requests allowed (0.01 = 1 %); dropped starts count as failures. */
    maxErrorRate: z.number().min(0).max(1).default(0.01),
    /** The traffic the candidate should carry; reported as met or not, does not stop stepping. */
    targetTps: z.number().positive().optional(),
  })
  .refine((sla) => sla.p95LatencyMs !== undefined || sla.p99LatencyMs !== undefined, {
    message: 'the SLA needs at least one latency bound: p95LatencyMs or p99LatencyMs (milliseconds)',
    path: ['p95LatencyMs'],
  });

export type LatencySla = z.infer<typeof slaSchema>;
export type LatencySlaInput = z.input<typeof slaSchema>;

/** The time one step takes on the schedule: warm-up then measurement window. */
export function stepPeriodMs(plan: LoadPlan): number {
  return (plan.warmupSeconds + plan.stepDurationSeconds) * 1000;
}

/** The schedule's length if every step runs. */
export function plannedDurationSeconds(plan: LoadPlan): number {
  return (plan.steps.length * stepPeriodMs(plan)) / 1000;
}

/**
 * This worker's part of a total: whole units (concurrency, request caps) are dealt out so that the
 * parts add up exactly (16 over 3 workers: 6, 5, 5); rates are split evenly.
 */
export function workerShare(total: number, workers: number, workerIndex: number, whole: boolean): number {
  if (!whole) return total / workers;
  const base = Math.floor(total / workers);
  return base + (workerIndex < total % workers ? 1 : 0);
}

/** The load one worker applies at a step: in-flight requests (closed) or requests/s (open). */
export function workerLoad(plan: LoadPlan, load: number, workerIndex: number): number {
  return workerShare(load, plan.workers, workerIndex, plan.model === 'closed');
}

/**
 * Connections a worker's transport must hold so that no request waits for a socket (the SDK's
 * default of 50 sockets per client would otherwise queue requests and report the queueing as
 * latency): the largest per-worker concurrency for a closed plan, `maxInFlight` for an open one.
 */
export function connectionsPerWorker(plan: LoadPlan): number {
  if (plan.model === 'open') return plan.maxInFlight;
  const largest = plan.steps[plan.steps.length - 1] ?? 1;
  return Math.max(1, Math.ceil(largest / plan.workers));
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeGiven(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function toInputIssues(root: string, error: z.ZodError, input: unknown): InputIssue[] {
  return error.issues.map((issue) => ({
    field: [root, ...issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))]
      .join('')
      .replace(/^\./, ''),
    given: describeGiven(valueAt(input, issue.path)),
    expected: issue.message,
  }));
}

/** Validates a plan and applies defaults; throws InvalidRunInputError naming each bad field. */
export function parseLoadPlan(input: unknown, field = 'loadPlan'): LoadPlan {
  const parsed = loadPlanSchema.safeParse(input);
  if (!parsed.success) throw new InvalidRunInputError(toInputIssues(field, parsed.error, input));
  return parsed.data;
}

/** Validates an SLA and applies defaults; throws InvalidRunInputError naming each bad field. */
export function parseSla(input: unknown, field = 'sla'): LatencySla {
  const parsed = slaSchema.safeParse(input);
  if (!parsed.success) throw new InvalidRunInputError(toInputIssues(field, parsed.error, input));
  return parsed.data;
}
