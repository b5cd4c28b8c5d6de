/**
 * A latency distribution as results, reports and the run summary carry it: percentiles and the
 * maximum in milliseconds (load-test/histogram.ts reads them out of an HdrHistogram).
 */
export interface LatencyPercentilesMs {
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}
