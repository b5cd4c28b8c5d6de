import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import type { LatencyPercentilesMs } from '../contracts/index.js';

/**
 * Latency histograms: HdrHistogram of microseconds, 1 µs .. 10 min, 3 significant digits (values
 * are resolved to within 1/1024 ≈ 0.1 % of themselves). Histograms add exactly, so percentiles of
 * merged workers are the percentiles of all their samples, which averaging percentiles is not.
 */
export const LOWEST_LATENCY_US = 1;
export const HIGHEST_LATENCY_US = 10 * 60 * 1_000_000;
export const SIGNIFICANT_DIGITS = 3;

export type LatencyHistogram = Histogram;

export function createLatencyHistogram(): LatencyHistogram {
  // autoResize off: a fixed counts array keeps recording allocation-free; values are clamped
  // into range by toRecordedUs, so nothing can fall outside it.
  return build({
    lowestDiscernibleValue: LOWEST_LATENCY_US,
    highestTrackableValue: HIGHEST_LATENCY_US,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    bitBucketSize: 32,
    autoResize: false,
  });
}

/** A latency as recorded: whole microseconds, below 1 µs as 1 µs, above 10 min as 10 min. */
export function toRecordedUs(latencyUs: number): number {
  if (!(latencyUs < HIGHEST_LATENCY_US))
    return Number.isNaN(latencyUs) ? LOWEST_LATENCY_US : HIGHEST_LATENCY_US;
  const rounded = (latencyUs + 0.5) | 0;
  return rounded < LOWEST_LATENCY_US ? LOWEST_LATENCY_US : rounded;
}

/** Records one latency straight into an HdrHistogram (off the hot path; see LatencyRecorder). */
export function recordLatencyUs(histogram: LatencyHistogram, latencyUs: number): void {
  histogram.recordValue(toRecordedUs(latencyUs));
}

// HdrHistogram's bucket layout for 3 significant digits from 1 µs (as in HdrHistogram's
// AbstractHistogram: values up to 2 × 10^digits keep unit resolution): sub-buckets of 2048
// values, each bucket doubling the unit. Valid while values fit in 31 bits (10 min = 6e8 µs does).
const SUB_BUCKET_HALF_COUNT_MAGNITUDE = Math.ceil(Math.log2(2 * 10 ** SIGNIFICANT_DIGITS)) - 1;
const SUB_BUCKET_HALF_COUNT = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
const SUB_BUCKET_MASK = 2 * SUB_BUCKET_HALF_COUNT - 1;
const BUCKET_INDEX_OFFSET = 31 - SUB_BUCKET_HALF_COUNT_MAGNITUDE;

function countsIndexOf(value: number): number {
  const bucket = BUCKET_INDEX_OFFSET - Math.clz32(value | SUB_BUCKET_MASK);
  return ((bucket + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + (value >>> bucket) - SUB_BUCKET_HALF_COUNT;
}

/** The lowest value and the width of the values that share a counts index. */
function valueRangeAt(index: number): { lowest: number; width: number } {
  let bucket = (index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1;
  let subBucket = (index & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
  if (bucket < 0) {
    subBucket -= SUB_BUCKET_HALF_COUNT;
    bucket = 0;
  }
  return { lowest: subBucket * 2 ** bucket, width: 2 ** bucket };
}

const COUNTS_LENGTH = countsIndexOf(HIGHEST_LATENCY_US) + 1;

/**
 * The engine's hot-path recorder: counts in exactly HdrHistogram's bucket layout, turned into an
 * HdrHistogram (`toHistogram`) when the step ends. hdr-histogram-js computes each record's bucket
 * with Math.log2 and Math.pow, about 100 ns per record on our machines, half the per-sample budget;
 * the same index from Math.clz32 costs a few ns. Every value lands in the bucket HdrHistogram
 * would give it, so the histogram, its encoding and its percentiles are the same as if each value
 * had been recorded there directly.
 */
export class LatencyRecorder {
  /** Number of latencies recorded. */
  count = 0;
  /** The largest latency recorded, exact (µs). */
  maxUs = 0;
  private readonly counts = new Float64Array(COUNTS_LENGTH);

  record(latencyUs: number): void {
    const value = toRecordedUs(latencyUs);
    const index = countsIndexOf(value);
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.count++;
    if (value > this.maxUs) this.maxUs = value;
  }

  /** As HdrHistogram's getValueAtPercentile (nearest rank, highest equivalent value), in µs. */
  valueAtPercentileUs(percentile: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((percentile / 100) * this.count));
    let seen = 0;
    for (let index = 0; index < COUNTS_LENGTH; index++) {
      seen += this.counts[index] ?? 0;
      if (seen >= rank) {
        const { lowest, width } = valueRangeAt(index);
        return Math.min(lowest + width - 1, this.maxUs);
      }
    }
    return this.maxUs;
  }

  toHistogram(): LatencyHistogram {
    const histogram = createLatencyHistogram();
    this.counts.forEach((count, index) => {
      if (count > 0) histogram.recordValueWithCount(valueRangeAt(index).lowest, count);
    });
    return histogram;
  }
}

/** Compressed, base64 HdrHistogram V2 encoding: readable by every HdrHistogram implementation. */
export function encodeHistogram(histogram: LatencyHistogram): string {
  return encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): LatencyHistogram {
  return decodeFromCompressedBase64(encoded);
}

/** Adds encoded histograms into one (an empty list gives an empty histogram). */
export function mergeEncodedHistograms(encoded: readonly string[]): LatencyHistogram {
  const merged = createLatencyHistogram();
  for (const item of encoded) merged.add(decodeHistogram(item));
  return merged;
}

/** Microseconds to milliseconds with 3 decimals (the report's unit). */
export function usToMs(us: number): number {
  return Math.round(us) / 1000;
}

/**
 * Percentiles by nearest rank (the smallest recorded value with at least p % of samples at or
 * below it), reported as the highest value equivalent to it within the histogram's resolution,
 * never above the maximum. A decoded histogram knows its maximum only to within its resolution;
 * pass the exact one (`exactMaxUs`) when known. An empty histogram gives zeros.
 */
export function latencyPercentilesMs(histogram: LatencyHistogram, exactMaxUs?: number): LatencyPercentilesMs {
  if (histogram.totalCount === 0) return { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  const maxUs = exactMaxUs ?? histogram.maxValue;
  const at = (percentile: number): number =>
    usToMs(Math.min(histogram.getValueAtPercentile(percentile), maxUs));
  return { p50: at(50), p90: at(90), p95: at(95), p99: at(99), max: usToMs(maxUs) };
}
