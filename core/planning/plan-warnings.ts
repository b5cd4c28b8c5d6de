import type { MarketRead } from './market-reads.js';
import { compilationSupportWarnings } from '../catalog/index.js';
import type { RunPlan, RunInput } from '../contracts/index.js';
import { workerCeilingWarning } from '../load-test/index.js';
import { shortRampWarning } from './serving-phases.js';
import { unknownInstanceFactWarnings } from './unknown-instance-facts.js';

/**
 * What the plan says without refusing it: the payloads' stream findings, a worker ceiling, fewer
 * candidates in flight than asked (quotas), a ramp too short to scale on AWS, targets Neo's table
 * does not list, instance facts the catalog lacks.
 */
export function planWarnings(
  input: RunInput,
  servingRegion: string | undefined,
  payloadWarnings: readonly string[],
  inFlightWarning: string | undefined,
  rampTest: RunPlan['rampTest'],
  fitWarnings: readonly string[],
  market: MarketRead,
): string[] {
  return [
    ...payloadWarnings,
    workerCeilingWarning(input.loadPlan),
    inFlightWarning,
    servingRegion === undefined ? undefined : shortRampWarning(rampTest),
    // Locally the project's compiler stands in for Neo: only AWS compilations rest on Neo's table.
    ...(servingRegion === undefined ? [] : compilationSupportWarnings(input.compilation.targets)),
    ...fitWarnings,
    ...market.prices.warnings,
    ...market.facts.warnings,
    ...unknownInstanceFactWarnings(market.candidateTypes, (type) => market.facts.specOf(type)),
  ].filter((warning) => warning !== undefined);
}
