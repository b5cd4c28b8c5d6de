import { SERVERLESS_USD_PER_GB_SECOND } from '../catalog/index.js';
import type { PriceBook } from './price-source.js';
import { resourceName, describeGiven } from '../contracts/index.js';
import type { PlannedCandidate, InputIssue, CandidateInput, RunInput } from '../contracts/index.js';
import { measuringSeconds } from '../load-test/index.js';
import { ESTIMATE_ASSUMPTIONS } from '../deployment/index.js';
import { roundUsd } from './estimates.js';
import { interleavedHoldSeconds } from './load-plan-rounds.js';

export interface ExpandedCandidate {
  readonly id: string;
  readonly candidate: CandidateInput;
  readonly rangeEnvironment: Record<string, string>;
}

/** Each candidate × each combination of environment-range values, with stable unique ids. */
export function expandCandidates(input: RunInput): ExpandedCandidate[] {
  const combinations = Object.entries(input.environmentRanges).reduce<Record<string, string>[]>(
    (acc, [name, values]) => acc.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value }))),
    [{}],
  );
  return input.candidates.flatMap((candidate, index) => {
    const baseId = candidate.id ?? defaultCandidateId(candidate, index);
    return combinations.map((rangeEnvironment, comboIndex) => ({
      id: combinations.length > 1 ? `${baseId}-e${comboIndex + 1}` : baseId,
      candidate,
      rangeEnvironment,
    }));
  });
}

function defaultCandidateId(candidate: CandidateInput, index: number): string {
  if ('serverless' in candidate) return `c${index + 1}-serverless-${candidate.serverless.memorySizeMb}`;
  const shortType = candidate.instanceType.replace(/^ml\./, '').replace(/\./g, '-');
  const suffix =
    candidate.compiledFor !== undefined ? '-neo' : candidate.optimizedBy !== undefined ? '-opt' : '';
  return `c${index + 1}-${shortType}${suffix}`;
}

/** The user's endpoint: already paid for, so the run adds no endpoint cost. */
export function planExistingEndpoint(
  input: RunInput,
  existing: NonNullable<RunInput['existingEndpoint']>,
  prices: PriceBook,
): PlannedCandidate {
  const { instanceType } = existing;
  const given = instanceType === undefined ? undefined : input.pricing.usdPerHour[instanceType];
  const listed = instanceType === undefined || given !== undefined ? undefined : prices.priceOf(instanceType);
  const usdPerHour = given ?? listed?.usdPerHour;
  return {
    id: 'existing',
    kind: 'existing',
    ...(instanceType === undefined ? {} : { instanceType }),
    initialInstanceCount: existing.instanceCount ?? 1,
    environment: {},
    modelName: '',
    endpointConfigName: '',
    endpointName: existing.endpointName,
    ...(usdPerHour === undefined ? {} : { usdPerHour }),
    priceSource: given !== undefined ? 'run-input' : (listed?.source ?? 'unknown'),
    ...(listed === undefined ? {} : { priceRegion: listed.region, priceAsOf: listed.asOf }),
    estimatedCostUsd: 0,
  };
}

/** A candidate as the run deploys it: its names, environment and what it may cost. */
export function planCandidate(
  runId: string,
  input: RunInput,
  expanded: ExpandedCandidate,
  holdSeconds: number,
  prices: PriceBook,
): PlannedCandidate {
  const { candidate, id } = expanded;
  const environment = { ...input.model?.environment, ...candidate.environment, ...expanded.rangeEnvironment };
  const names = {
    modelName: resourceName(runId, 'model', id),
    endpointConfigName: resourceName(runId, 'endpoint-config', id),
    endpointName: resourceName(runId, 'endpoint', id),
  };
  // Serverless endpoints are billed per request, so only real-time ones cost while kept.
  const billedSeconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    measuringSeconds(input.loadPlan) +
    ESTIMATE_ASSUMPTIONS.teardownSeconds +
    holdSeconds;
  if ('serverless' in candidate) {
    const gb = candidate.serverless.memorySizeMb / 1024;
    const usd =
      measuringSeconds(input.loadPlan) *
      candidate.serverless.maxConcurrency *
      gb *
      SERVERLESS_USD_PER_GB_SECOND;
    return {
      id,
      kind: 'serverless',
      initialInstanceCount: 0,
      serverless: candidate.serverless,
      environment,
      ...names,
      priceSource: 'serverless-per-second',
      estimatedCostUsd: roundUsd(usd),
    };
  }
  const override = input.pricing.usdPerHour[candidate.instanceType];
  // checkCandidatePrices refused a candidate with no price before any was planned.
  const listed = override === undefined ? prices.priceOf(candidate.instanceType) : undefined;
  const usdPerHour = override ?? listed?.usdPerHour ?? Number.NaN;
  return {
    id,
    kind: 'realtime',
    instanceType: candidate.instanceType,
    initialInstanceCount: candidate.initialInstanceCount,
    ...(candidate.compiledFor === undefined ? {} : { compiledFor: candidate.compiledFor }),
    ...(candidate.optimizedBy === undefined ? {} : { optimizedBy: candidate.optimizedBy }),
    ...(candidate.routingStrategy === undefined ? {} : { routingStrategy: candidate.routingStrategy }),
    environment,
    ...names,
    usdPerHour,
    priceSource: listed?.source ?? 'run-input',
    ...(listed === undefined ? {} : { priceRegion: listed.region, priceAsOf: listed.asOf }),
    estimatedCostUsd: roundUsd((billedSeconds / 3600) * usdPerHour * candidate.initialInstanceCount),
  };
}

/**
 * One issue per listed candidate that no price covers: none in the run input, none live on AWS, no
 * row in the recorded table. Named by the candidate's field, with where the planner looked and
 * the two ways to price it.
 */
export function unpricedCandidateIssues(input: RunInput, prices: PriceBook): InputIssue[] {
  return input.candidates.flatMap((candidate, index) => {
    if (!('instanceType' in candidate)) return [];
    const { instanceType } = candidate;
    if (input.pricing.usdPerHour[instanceType] !== undefined) return [];
    if (prices.priceOf(instanceType) !== undefined) return [];
    return [
      {
        field: `candidates[${index}].instanceType`,
        given: describeGiven(instanceType),
        expected: prices.unpricedExpectation(instanceType),
      },
    ];
  });
}

/**
 * The run's candidates: each input candidate × each combination of environment-range values,
 * or the user's endpoint alone.
 */
export function planCandidates(
  runId: string,
  input: RunInput,
  candidateCount: number,
  prices: PriceBook,
): PlannedCandidate[] {
  if (input.existingEndpoint !== undefined)
    return [planExistingEndpoint(input, input.existingEndpoint, prices)];
  return expandCandidates(input).map((expanded, index) =>
    planCandidate(runId, input, expanded, interleavedHoldSeconds(input, candidateCount, index), prices),
  );
}
