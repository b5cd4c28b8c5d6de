import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses } from '../../../core/contracts/optimization-state.js';
import type { PlannedPayload } from '../../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  latencyPercentilesMs,
  recordLatencyUs,
} from '../../../core/load-test/histogram.js';
import type { PayloadStepResult, StepResult } from '../../../core/load-test/results.js';
import { buildReport } from '../../../core/report/build-report.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import type { Report } from '../../../core/report/report.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

const PAYLOADS: PlannedPayload[] = [
  { uri: 's3://user-models/cnn/small.json', contentType: 'application/json', weight: 3, sizeBytes: 1_536 },
  {
    uri: 's3://user-models/cnn/large.json',
    contentType: 'application/json',
    weight: 1,
    sizeBytes: 2_097_152,
  },
];

/** `count` requests of `latencyMs` each, `errors` more that failed. */
function payloadFigures(payload: number, count: number, latencyMs: number, errors = 0): PayloadStepResult {
  const histogram = createLatencyHistogram();
  for (let index = 0; index < count; index += 1) recordLatencyUs(histogram, latencyMs * 1000);
  return {
    payload,
    requests: count + errors,
    errors,
    latencyMs: latencyPercentilesMs(histogram),
    histogram: encodeHistogram(histogram),
  };
}

function withPayloads(step: StepResult, payloads: readonly PayloadStepResult[]): StepResult {
  return { ...step, payloads };
}

function mixedReport(payloads: readonly PlannedPayload[] = PAYLOADS): Report {
  // Both steps meet the sample SLA (p95 ≤ 20 ms): the sustainable step is the second (load 4).
  const steps = [
    withPayloads(stepResult({ load: 1, tps: 100, medianMs: 4, tailMs: 2 }), [
      payloadFigures(0, 750, 3),
      payloadFigures(1, 250, 9),
    ]),
    withPayloads(stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 }), [
      payloadFigures(0, 2700, 6),
      payloadFigures(1, 898, 18, 2),
    ]),
  ];
  return buildReport({
    plan: runPlan([plannedCandidate('c1-c5-xlarge', 'ml.c5.xlarge', 0.204)], { payloads }),
    outcomes: [{ candidateId: 'c1-c5-xlarge', status: CandidateStatuses.measured }],
    results: new Map([['c1-c5-xlarge', loadTestResult(steps)]]),
    measuredLocally: true,
    generatedAt: '2026-11-22T10:30:00.000Z',
  });
}

describe('report: latency by payload', () => {
  it("lists the run's payload mix in report.json, with each payload's share and size", () => {
    // Act
    const report = mixedReport();

    // Assert
    expect(report.payloads).toEqual([
      {
        index: 0,
        uri: 's3://user-models/cnn/small.json',
        contentType: 'application/json',
        weight: 3,
        share: 0.75,
        sizeBytes: 1_536,
      },
      {
        index: 1,
        uri: 's3://user-models/cnn/large.json',
        contentType: 'application/json',
        weight: 1,
        share: 0.25,
        sizeBytes: 2_097_152,
      },
    ]);
  });

  it("keeps each step's per-payload figures in report.json, without their histograms", () => {
    // Act
    const report = mixedReport();

    // Assert
    expect(report.candidates[0]?.steps[1]?.payloads).toEqual([
      { payload: 0, requests: 2700, errors: 0, latencyMs: { p50: 6, p90: 6, p95: 6, p99: 6, max: 6 } },
      { payload: 1, requests: 900, errors: 2, latencyMs: { p50: 18, p90: 18, p95: 18, p99: 18, max: 18 } },
    ]);
  });

  it("renders a section with each payload's count, percentiles and size at the sustainable step", () => {
    // Act
    const markdown = renderMarkdownReport(mixedReport());

    // Assert
    const section = markdown.slice(markdown.indexOf('## Latency by payload'), markdown.indexOf('## Prices'));
    expect(section.split('\n')).toEqual([
      '## Latency by payload',
      '',
      'Each request drew one of 2 payloads at random by weight (the same draws on every run). Figures are ' +
        "each candidate's, per payload, at its sustainable step, or at its last measured step when none met " +
        'the SLA; latency counts successful requests only.',
      '',
      '### c1-c5-xlarge, at concurrency 4, its sustainable step',
      '',
      '| Payload | Size | Weight (share) | Requests | Errors | p50 ms | p95 ms | p99 ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      '| #1 small.json | 1.5 KiB | 3 (75.0%) | 2700 | 0 | 6.00 | 6.00 | 6.00 |',
      '| #2 large.json | 2.0 MiB | 1 (25.0%) | 900 | 2 | 18.0 | 18.0 | 18.0 |',
      '',
      '',
    ]);
  });

  it('renders the same section in report.html', async () => {
    // Act
    const html = await renderHtmlReport(mixedReport());

    // Assert
    expect(html).toContain('<h2>Latency by payload</h2>');
    expect(html).toContain('<h3>c1-c5-xlarge, at concurrency 4, its sustainable step</h3>');
    expect(html).toContain('<td>#2 large.json</td>');
  });

  it('adds neither the section nor the payload list for a run with one payload', () => {
    // Act
    const report = mixedReport(PAYLOADS.slice(0, 1));

    // Assert
    expect(report.payloads).toBeUndefined();
    expect(renderMarkdownReport(report)).not.toContain('Latency by payload');
  });

  it("names a prompt set's buckets by their name, range and prompts, and says how the set was drawn", () => {
    // Prepare
    const uri = 's3://user-models/llm/prompts.jsonl';
    const buckets: PlannedPayload[] = [
      {
        uri,
        contentType: 'application/json',
        weight: 30,
        sizeBytes: 4_096,
        bucket: { name: 'short', maxChars: 1000 },
      },
      { uri, contentType: 'application/json', weight: 10, sizeBytes: 40_960, bucket: { name: 'long' } },
    ];

    // Act
    const markdown = renderMarkdownReport(mixedReport(buckets));

    // Assert
    const section = markdown.slice(markdown.indexOf('## Latency by payload'), markdown.indexOf('## Prices'));
    expect(section.split('\n')).toEqual([
      '## Latency by payload',
      '',
      "Each request drew one prompt of the set, every prompt as likely (the same draws on every run); the prompts are bucketed by their length in characters (not tokens: the model's tokenizer is the container's). Figures are each candidate's, per bucket, at its sustainable step, or at its last measured step when none met the SLA; latency is to the end of the response, of successful requests only. Time to first token is measured over all buckets together, not per bucket.",
      '',
      '### c1-c5-xlarge, at concurrency 4, its sustainable step',
      '',
      '| Payload | Size | Weight (share) | Requests | Errors | p50 ms | p95 ms | p99 ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      '| #1 short (≤ 1000 chars, 30 prompts) | 4.0 KiB | 30 (75.0%) | 2700 | 0 | 6.00 | 6.00 | 6.00 |',
      '| #2 long (longer, 10 prompts) | 40.0 KiB | 10 (25.0%) | 900 | 2 | 18.0 | 18.0 | 18.0 |',
      '',
      '',
    ]);
  });
});
