import type { LatencySla } from '../contracts/index.js';

/**
 * The SLA's bounds in words, as the input set them (at least one latency bound: p95, p99, or a
 * streamed response's time to first token or inter-token latency), then the error rate:
 * `p95 ≤ 25 ms, TTFT p95 ≤ 200 ms, error rate ≤ 0.01`. One text for the plan, the reports and the
 * terminal summary.
 */
export function slaBoundsText(sla: LatencySla, formatRate: (rate: number) => string = String): string {
  return [
    ...(sla.p95LatencyMs === undefined ? [] : [`p95 ≤ ${sla.p95LatencyMs} ms`]),
    ...(sla.p99LatencyMs === undefined ? [] : [`p99 ≤ ${sla.p99LatencyMs} ms`]),
    ...(sla.ttftP95Ms === undefined ? [] : [`time to first token p95 ≤ ${sla.ttftP95Ms} ms`]),
    ...(sla.itlP95Ms === undefined ? [] : [`inter-token latency p95 ≤ ${sla.itlP95Ms} ms`]),
    `error rate ≤ ${formatRate(sla.maxErrorRate)}`,
  ].join(', ');
}
