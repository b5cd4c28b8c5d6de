/**
 * Latency samples for the histogram's accuracy tests and benchmarks: a lognormal sampler over
 * a seeded generator (core/contracts/seeded-random.ts), and the exact percentile to compare with.
 */

/** Lognormal samples (Box-Muller): median e^mu, spread sigma; a common shape of service latency. */
export function lognormalSampler(random: () => number, mu: number, sigma: number): () => number {
  return () => {
    const u = 1 - random();
    const v = random();
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.exp(mu + sigma * normal);
  };
}

/** Nearest-rank percentile: the smallest value with at least p % of the values at or below it. */
export function exactPercentile(sortedAscending: readonly number[], percentile: number): number {
  const rank = Math.max(1, Math.ceil((percentile / 100) * sortedAscending.length));
  const value = sortedAscending[rank - 1];
  if (value === undefined) throw new Error(`no value at rank ${rank} of ${sortedAscending.length}`);
  return value;
}
