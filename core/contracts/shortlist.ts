import { z } from 'zod';

/**
 * `candidates: { "shortlist": { "max": 6, "kinds": ["cpu", "gpu"] } }`: the user names no instance
 * types and the planner picks them (core/planning/shortlist.ts). The plan carries what it picked
 * and why the other families were left out, so the report can say the list was the tool's choice.
 */

/** What a shortlisted type serves the model on: host CPUs, an NVIDIA GPU, or AWS Inferentia. */
export const SHORTLIST_KINDS = ['cpu', 'gpu', 'inferentia'] as const;
export type ShortlistKind = (typeof SHORTLIST_KINDS)[number];

/**
 * The most types a shortlist holds: each is an endpoint created, load tested and billed, and
 * SageMaker Inference Recommender, which also picks types for its user, caps a job at 10
 * (RUN_LIMITS.maxCandidates in run-input.ts).
 */
export const MAX_SHORTLIST = 10;

export const shortlistRequestSchema = z.strictObject({
  shortlist: z.strictObject({
    max: z
      .int({ message: `a whole number of instance types from 1 to ${MAX_SHORTLIST}` })
      .min(1, { message: `a whole number of instance types from 1 to ${MAX_SHORTLIST}` })
      .max(MAX_SHORTLIST, {
        message: `at most ${MAX_SHORTLIST} instance types (each is an endpoint created, load tested and billed)`,
      })
      .default(6),
    kinds: z
      .array(z.enum(SHORTLIST_KINDS, { message: `one of ${SHORTLIST_KINDS.join(', ')}` }))
      .min(1, { message: `at least one of ${SHORTLIST_KINDS.join(', ')}` })
      .refine((kinds) => new Set(kinds).size === kinds.length, { message: 'each kind once' }),
  }),
});

export type ShortlistRequest = z.output<typeof shortlistRequestSchema>['shortlist'];

/** One type the planner picked, with the price it was ranked by. */
export interface ShortlistedType {
  readonly instanceType: string;
  readonly kind: ShortlistKind;
  readonly usdPerHour: number;
  /** The compilation target it serves, when the run compiles for its family. */
  readonly compiledFor?: string;
}

/** Families left out for one reason (grouped, so a plan names each reason once). */
export interface ShortlistExclusion {
  readonly reason: string;
  readonly families: readonly string[];
}

/** The plan's record of a shortlist: the tool's choice, the rule it followed, and what it left out. */
export interface Shortlist {
  readonly request: ShortlistRequest;
  readonly rule: string;
  readonly chosen: readonly ShortlistedType[];
  readonly leftOut: readonly ShortlistExclusion[];
}
