/**
 * A load generator's own cost: CPU time (user + system) of its process over a run, per request it
 * completed. On a 2-core machine shared with the server, requests/s alone can hide a client that
 * wins throughput by burning more CPU; CPU per request is what sets how many load workers a
 * high-throughput endpoint needs.
 */

/** What a child reports: its CPU time over the run (µs, `process.cpuUsage(start)`) and requests. */
export interface ClientCost {
  readonly cpuUs: number;
  readonly requests: number;
}

/** Microseconds of CPU per request of one run; NaN when the run completed no request. */
export function cpuUsPerRequest(cost: ClientCost): number {
  return cost.requests > 0 ? cost.cpuUs / cost.requests : Number.NaN;
}

/** The CPU a child has used since `start` (a `process.cpuUsage()` taken before the run), in µs. */
export function cpuUsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return used.user + used.system;
}
