import { z } from 'zod';
import type { LoadPlan } from './load-plan.js';
import { parseOrThrow } from './validation.js';

/** The latency SLA a candidate must meet at a step for that step to count as sustainable. */
export const slaSchema = z
  .strictObject({
    p95LatencyMs: z.number().positive().optional(),
    p99LatencyMs: z.number().positive().optional(),
    /** Streamed responses (loadPlan.response.mode "stream"): time to first token, p95. */
    ttftP95Ms: z.number().positive().optional(),
    /** Streamed responses: the gap between consecutive tokens, p95 over every gap. */
    itlP95Ms: z.number().positive().optional(),
    /** Fraction of failed requests allowed (0.01 = 1 %); dropped starts count as failures. */
    maxErrorRate: z.number().min(0).max(1).default(0.01),
    /** The traffic the candidate should carry; reported as met or not, does not stop stepping. */
    targetTps: z.number().positive().optional(),
  })
  .superRefine((sla, ctx) => {
    const bounds = [sla.p95LatencyMs, sla.p99LatencyMs, sla.ttftP95Ms, sla.itlP95Ms];
    if (bounds.some((bound) => bound !== undefined)) return;
    ctx.addIssue({
      code: 'custom',
      path: ['p95LatencyMs'],
      input: undefined,
      message:
        'at least one latency bound: p95LatencyMs, p99LatencyMs, or for streamed responses ttftP95Ms or itlP95Ms (milliseconds)',
    });
  });

export type LatencySla = z.infer<typeof slaSchema>;
export type LatencySlaInput = z.input<typeof slaSchema>;

/** Validates an SLA and applies defaults; throws InvalidRunInputError naming each bad field. */
export function parseSla(input: unknown, field = 'sla'): LatencySla {
  return parseOrThrow(slaSchema, input, [field]);
}

/** What a streaming SLA bound needs: a plan that streams. */
const STREAM_BOUND_EXPECTED =
  'nothing unless loadPlan.response is { "mode": "stream", "format": … }: time to first token and inter-token latency are measured on streamed responses only';

/**
 * SLA bounds on TTFT or ITL for a plan that does not stream: they could not be measured, so every
 * step would breach them. Checked with the run input (run-input.ts) and again by the engine
 * (load-test/streaming/step-invoker.ts).
 */
export function streamingSlaIssues(
  plan: Pick<LoadPlan, 'response'>,
  sla: Pick<LatencySla, 'ttftP95Ms' | 'itlP95Ms'>,
): { readonly path: readonly ['sla', string]; readonly given: number; readonly message: string }[] {
  if (plan.response?.mode === 'stream') return [];
  return (['ttftP95Ms', 'itlP95Ms'] as const).flatMap((field) => {
    const bound = sla[field];
    return bound === undefined
      ? []
      : [{ path: ['sla', field] as const, given: bound, message: STREAM_BOUND_EXPECTED }];
  });
}
