import {
  InvalidRunInputError,
  type PlannedQuality,
  qualityIssues,
  referenceCandidateIndex,
} from '../contracts/index.js';
import type { PlannedCandidate, RunInput } from '../contracts/index.js';
import { expandCandidates } from './candidates.js';

/**
 * The plan's `quality`: the run input's block with the reference resolved to a planned candidate.
 * The input's rules ran on the listed candidates when it was parsed; a shortlist's candidates are
 * known only now, so the same rules run again on them. A listed candidate expanded over
 * `environmentRanges` is the reference as its first combination: the ranges tune the container,
 * not the model, so each combination should answer as the first does.
 */
export function plannedQuality(
  input: RunInput,
  candidates: readonly PlannedCandidate[],
): PlannedQuality | undefined {
  const { quality } = input;
  if (quality === undefined) return undefined;
  const issues = qualityIssues({
    quality,
    candidates: input.candidates,
    existingEndpoint: input.existingEndpoint,
    generative: false,
  });
  const index = referenceCandidateIndex({ quality, candidates: input.candidates, generative: false });
  const listed = index === undefined ? undefined : input.candidates[index];
  const expanded = expandCandidates(input).find((candidate) => candidate.candidate === listed);
  const referenceCandidateId = candidates.find((candidate) => candidate.id === expanded?.id)?.id;
  if (issues.length > 0 || referenceCandidateId === undefined) {
    throw new InvalidRunInputError(
      (issues.length > 0
        ? issues
        : [{ path: ['quality', 'reference'], message: 'a candidate of the plan', given: quality.reference }]
      ).map((issue) => ({
        field: issue.path.map(String).join('.'),
        given: issue.given === undefined ? 'nothing' : JSON.stringify(issue.given),
        expected: issue.message,
      })),
    );
  }
  return { ...quality, referenceCandidateId };
}
