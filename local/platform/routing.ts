/**
 * The local front's choice of instance for one request, as a real-time SageMaker endpoint makes it
 * (SageMaker API reference, ProductionVariantRoutingConfig):
 *
 * - `RANDOM` (SageMaker's default): "routes each request to a randomly chosen instance";
 * - `LEAST_OUTSTANDING_REQUESTS`: "routes requests to the specific instances that have more
 *   capacity to process them"; locally, the instance with the fewest requests in flight, ties
 *   broken at random (an idle endpoint then spreads its requests instead of piling them on the
 *   first instance).
 */
import { RoutingStrategies, type RoutingStrategy } from '../../core/contracts/index.js';

/**
 * The index of the instance that takes the request, given each instance's requests in flight;
 * `undefined` when there is no instance. `random` returns a number in [0, 1) like `Math.random`.
 */
export function chooseInstance(
  strategy: RoutingStrategy,
  outstanding: readonly number[],
  random: () => number,
): number | undefined {
  if (outstanding.length === 0) return undefined;
  const candidates =
    strategy === RoutingStrategies.leastOutstandingRequests
      ? leastBusy(outstanding)
      : outstanding.map((_, index) => index);
  return candidates[Math.min(candidates.length - 1, Math.floor(random() * candidates.length))];
}

function leastBusy(outstanding: readonly number[]): number[] {
  const fewest = Math.min(...outstanding);
  return outstanding.flatMap((count, index) => (count === fewest ? [index] : []));
}
