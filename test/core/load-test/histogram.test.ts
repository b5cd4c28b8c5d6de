import { describe, expect, it } from '@jest/globals';
import {
  LatencyRecorder,
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  latencyPercentilesMs,
  mergeEncodedHistograms,
  recordLatencyUs,
} from '../../../core/load-test/histogram.js';
import { seededRandom } from '../../../core/contracts/seeded-random.js';
import { exactPercentile, lognormalSampler } from '../../../bench/support/latency-samples.js';

describe('latency histograms', () => {
  it('give percentiles within 0.1 % of the exact nearest-rank percentiles', () => {
    // Arrange: 20 000 lognormal latencies around 20 ms (µs, whole numbers as recorded).
    const sample = lognormalSampler(seededRandom(7), Math.log(20_000), 0.6);
    const values = Array.from({ length: 20_000 }, () => Math.round(sample()));
    const histogram = createLatencyHistogram();
    for (const value of values) recordLatencyUs(histogram, value);
    const sorted = [...values].sort((a, b) => a - b);

    // Act
    const percentiles = latencyPercentilesMs(histogram);

    // Assert
    for (const [name, percentile] of [
      ['p50', 50],
      ['p90', 90],
      ['p95', 95],
      ['p99', 99],
    ] as const) {
      const exactMs = exactPercentile(sorted, percentile) / 1000;
      expect(Math.abs(percentiles[name] - exactMs) / exactMs).toBeLessThanOrEqual(0.001);
    }
    expect(percentiles.max).toBe((sorted[sorted.length - 1] ?? 0) / 1000);
  });

  it('merge encoded histograms into exactly the histogram of all their samples', () => {
    // Arrange: three workers, one of them slow.
    const random = seededRandom(11);
    const workers = [10_000, 10_000, 80_000].map((medianUs) => {
      const sample = lognormalSampler(random, Math.log(medianUs), 0.4);
      return Array.from({ length: 5_000 }, () => Math.round(sample()));
    });
    const together = createLatencyHistogram();
    const encoded = workers.map((values) => {
      const histogram = createLatencyHistogram();
      for (const value of values) {
        recordLatencyUs(histogram, value);
        recordLatencyUs(together, value);
      }
      return encodeHistogram(histogram);
    });

    // Act
    const merged = mergeEncodedHistograms(encoded);

    // Assert: identical counts, so identical percentiles (the exact maximum travels beside them).
    expect(merged.totalCount).toBe(15_000);
    expect(latencyPercentilesMs(merged, together.maxValue)).toEqual(latencyPercentilesMs(together));
  });

  it('clamp latencies into 1 µs .. 10 min instead of failing', () => {
    // Arrange
    const histogram = createLatencyHistogram();

    // Act
    recordLatencyUs(histogram, 0.2);
    recordLatencyUs(histogram, 3_600_000_000);

    // Assert
    const decoded = decodeHistogram(encodeHistogram(histogram));
    expect(decoded.totalCount).toBe(2);
    expect(decoded.getValueAtPercentile(1)).toBe(1);
    expect(latencyPercentilesMs(histogram).max).toBeGreaterThanOrEqual(600_000);
    expect(latencyPercentilesMs(histogram).max).toBeLessThanOrEqual(600_000 * 1.001);
  });

  it('put every value of the fast recorder in the bucket HdrHistogram itself gives it', () => {
    // Arrange: log-uniform values over the whole range, and the edges of the bucket layout.
    const random = seededRandom(5);
    const values = [
      ...Array.from({ length: 50_000 }, () => Math.exp(random() * Math.log(600_000_000))),
      ...[0, 1, 2047, 2048, 2049, 4095, 4096, 4097, 1_048_575, 1_048_576, 599_999_999, 600_000_000, 7e9, -3],
    ];
    const direct = createLatencyHistogram();
    const recorder = new LatencyRecorder();

    // Act
    for (const value of values) {
      recordLatencyUs(direct, value);
      recorder.record(value);
    }
    const converted = recorder.toHistogram();

    // Assert: same count at every percentile, so the same encoding reads back the same.
    expect(converted.totalCount).toBe(direct.totalCount);
    for (let percentile = 0.5; percentile <= 100; percentile += 0.5) {
      expect(converted.getValueAtPercentile(percentile)).toBe(direct.getValueAtPercentile(percentile));
      expect(recorder.valueAtPercentileUs(percentile)).toBe(
        Math.min(direct.getValueAtPercentile(percentile), direct.maxValue),
      );
    }
    expect(recorder.maxUs).toBe(600_000_000);
    expect(latencyPercentilesMs(decodeHistogram(encodeHistogram(converted)), recorder.maxUs)).toEqual(
      latencyPercentilesMs(direct),
    );
  });

  it('report zeros for an empty histogram', () => {
    expect(latencyPercentilesMs(createLatencyHistogram())).toEqual({
      p50: 0,
      p90: 0,
      p95: 0,
      p99: 0,
      max: 0,
    });
  });
});
