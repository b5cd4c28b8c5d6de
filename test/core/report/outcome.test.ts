import { describe, expect, it } from '@jest/globals';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import { plannedCandidate, reportFrom, type SampleEntry } from './support/sample-report.js';

/** A candidate that meets the sample SLA (p95 ≤ 20 ms) at its first step. */
function fast(id: string, usdPerHour = 0.2): SampleEntry {
  return {
    candidate: plannedCandidate(id, 'ml.c5.xlarge', usdPerHour),
    steps: [{ load: 1, tps: 200, medianMs: 4, tailMs: 2 }],
  };
}

/** A candidate that misses the sample SLA on latency at its first step. */
function slow(id: string): SampleEntry {
  return {
    candidate: plannedCandidate(id, 'ml.m5.large', 0.115),
    steps: [{ load: 1, tps: 40, medianMs: 30, tailMs: 10 }],
  };
}

/** A cheap candidate that meets the SLA at load 1 and whose endpoint stalls at load 2. */
function stalling(id: string): SampleEntry {
  return {
    candidate: plannedCandidate(id, 'ml.c5.large', 0.05),
    steps: [
      { load: 1, tps: 200, medianMs: 4, tailMs: 2 },
      { load: 2, tps: 30, medianMs: 4, tailMs: 2, stall: { atMs: 1000, durationMs: 17_000 } },
    ],
  };
}

/** A candidate whose endpoint failed to deploy. */
function failed(id: string): SampleEntry {
  return {
    candidate: plannedCandidate(id, 'ml.g4dn.xlarge', 0.736),
    outcome: {
      candidateId: id,
      status: 'FAILED',
      error: {
        Error: 'EndpointFailedError',
        Cause: 'Endpoint mso-x-ep-gpu failed: the primary container did not pass the ping health check',
      },
    },
  };
}

/** A candidate whose model rejects every request of its first step (500 from the container). */
function modelErrors(id: string): SampleEntry {
  return {
    candidate: plannedCandidate(id, 'ml.c5.large', 0.102),
    steps: [
      {
        load: 1,
        tps: 0,
        medianMs: 3,
        tailMs: 1,
        errors: { modelError: 120 },
        errorSamples: [
          {
            kind: 'model-error',
            statusCode: 500,
            message: 'Input tensor "input0" expected shape [1,3,224,224]',
          },
        ],
      },
    ],
  };
}

const ZERO_COUNTS = {
  recommended: 0,
  'runner-up': 0,
  'missed-sla': 0,
  'quality-failed': 0,
  'quality-unknown': 0,
  stalled: 0,
  'model-errors': 0,
  'measurement-problem': 0,
  failed: 0,
  skipped: 0,
};

describe('the report’s outcome', () => {
  it('is "recommended" when every candidate was judged and one met the SLA', () => {
    // Act
    const report = reportFrom([fast('c5'), slow('m5')]);

    // Assert
    expect(report.outcome).toBe('recommended');
    expect(report.counts).toEqual({ ...ZERO_COUNTS, recommended: 1, 'missed-sla': 1 });
    expect(report.outcomeText).toBe('Recommended c5; 2 candidates: 1 recommended, 1 missed the SLA.');
  });

  it('is "partial" when a recommendation was made but a candidate failed', () => {
    // Act
    const report = reportFrom([fast('c5'), failed('gpu')]);

    // Assert
    expect(report.outcome).toBe('partial');
    expect(report.outcomeText).toBe(
      'Partial: recommended c5, but not every candidate could be judged against the SLA; 2 candidates: 1 recommended, 1 failed.',
    );
  });

  it('does not rank a candidate whose endpoint stalled, and its verdict names the stall', async () => {
    // Act: the stalling candidate is the cheapest and met the SLA at load 1.
    const report = reportFrom([stalling('c5-large'), fast('c5')]);

    // Assert
    expect(report.recommendation?.candidateId).toBe('c5');
    const [stalled] = report.candidates;
    expect(stalled?.verdict).toBe('stalled');
    expect(stalled?.reason).toMatch(
      /^stalled: endpoint stalled at 1\.0 s into step 2 \(2 in flight\) for 17\.0 s, no answer while requests were outstanding; it met the SLA up to load 1 before/,
    );
    expect(report.counts).toEqual({ ...ZERO_COUNTS, recommended: 1, stalled: 1 });
    expect(report.outcome).toBe('recommended');
    expect(renderMarkdownReport(report)).toContain(
      'endpoint stalled at 1.0 s into step 2 (2 in flight) for 17.0 s',
    );
    expect(await renderHtmlReport(report)).toContain(
      'endpoint stalled at 1.0 s into step 2 (2 in flight) for 17.0 s',
    );
  });

  it('is "no-candidate-met-sla" when the only measured candidate stalled', () => {
    // Act
    const report = reportFrom([stalling('c5-large')]);

    // Assert
    expect(report.outcome).toBe('no-candidate-met-sla');
    expect(report.outcomeText).toBe('No recommendation: no candidate met the SLA; 1 candidate: 1 stalled.');
  });

  it('is "no-candidate-met-sla" when candidates were measured and all missed', () => {
    // Act
    const report = reportFrom([slow('m5'), failed('gpu')]);

    // Assert
    expect(report.outcome).toBe('no-candidate-met-sla');
    expect(report.recommendation).toBeNull();
    expect(report.noRecommendationReason).toBe(
      'no candidate met the SLA at any load step; try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA',
    );
  });

  it('is "all-candidates-failed" when no candidate could be judged (failed, model errors)', () => {
    // Act
    const report = reportFrom([failed('gpu'), modelErrors('c5')]);

    // Assert
    expect(report.outcome).toBe('all-candidates-failed');
    expect(report.counts).toEqual({ ...ZERO_COUNTS, 'model-errors': 1, failed: 1 });
    expect(report.outcomeText).toBe(
      'No recommendation: every candidate failed; 2 candidates: 1 model errors, 1 failed.',
    );
  });

  it('is stated at the top of report.md, and what happened to each candidate under the candidate table', () => {
    // Prepare
    const report = reportFrom([fast('c5'), failed('gpu')]);

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    const outcome = markdown.slice(markdown.indexOf('## Outcome'), markdown.indexOf('## Recommendation'));
    expect(outcome).toBe(
      [
        '## Outcome',
        '',
        '**Partial: recommended c5, but not every candidate could be judged against the SLA; 2 candidates: 1 recommended, 1 failed.** (outcome `partial`)',
        '',
        '',
      ].join('\n'),
    );
    const candidates = markdown.slice(
      markdown.indexOf('## Candidates'),
      markdown.indexOf('## SLA and objective'),
    );
    expect(candidates).toContain(
      [
        // c5's one step met the SLA: it was not saturated, its cost an upper bound.
        '- c5: recommended — best under lowest-cost-per-1m: ≤ $0.2778 per 1M inferences; not saturated: every step met the SLA up to load 1 (the load plan ended), so the capacity is at least 200 TPS; add higher load steps to find it',
        '- gpu: failed — failed: EndpointFailedError: Endpoint mso-x-ep-gpu failed: the primary container did not pass the ping health check',
      ].join('\n'),
    );
    expect(markdown.indexOf('## Outcome')).toBeLessThan(markdown.indexOf('## Recommendation'));
  });

  it('is stated at the top of report.html, classed by outcome', async () => {
    // Prepare
    const report = reportFrom([slow('m5')]);

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(html).toContain(
      '<h2>Outcome</h2>\n<p class="outcome no-candidate-met-sla"><strong>No recommendation: no candidate met the SLA; 1 candidate: 1 missed the SLA.</strong> (outcome <code>no-candidate-met-sla</code>)</p>',
    );
    expect(html.indexOf('<h2>Outcome</h2>')).toBeLessThan(html.indexOf('<h2>Recommendation</h2>'));
  });
});

describe('a candidate whose model fails every request', () => {
  it('is "model-errors", not missed-sla, with the model’s response and a hint to check the model and payload', () => {
    // Act
    const report = reportFrom([modelErrors('c5')]);

    // Assert
    const [candidate] = report.candidates;
    expect(candidate?.verdict).toBe('model-errors');
    expect(candidate?.reason).toBe(
      'model errors: every request of the first step (load 1) failed, 120 of 120 with a model error, ' +
        'e.g. 500 "Input tensor "input0" expected shape [1,3,224,224]"; check the model and the payload it ' +
        'is sent (content type, input names and shape); the endpoint’s logs have the model’s own message',
    );
  });

  it('has no latency figures (null in report.json, "—" in report.md), never zeros', () => {
    // Prepare
    const report = reportFrom([modelErrors('c5')]);

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(report.candidates[0]?.steps[0]).toMatchObject({ latencyMs: null, meanLatencyMs: null });
    expect(markdown).toContain('| 1 | 120 | 0.0 | 100.00% | — | — | — | — | — | 120/0/0/0 |');
    expect(markdown).not.toContain('0.00 | 0.00');
  });

  it('keeps "missed-sla", with the hint for capacity, when the first step missed on latency alone', () => {
    // Act
    const report = reportFrom([slow('m5')]);

    // Assert
    expect(report.candidates[0]?.verdict).toBe('missed-sla');
    expect(report.candidates[0]?.reason).toMatch(
      /^missed the SLA from the first step \(load 1\): p95 .* > SLA 20 ms.*; try larger or more instances, or try a compiled candidate \(compiledFor\), or relax the SLA$/,
    );
  });
});
