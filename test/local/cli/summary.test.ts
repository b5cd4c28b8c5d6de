import { describe, expect, it } from '@jest/globals';
import type { Report } from '../../../core/report/report.js';
import { formatSummary } from '../../../local/cli/summary.js';
import { notHeldRamp, withRamp } from '../../../bench/fixtures/ramp-reports.js';
import { plannedCandidate, reportFrom } from '../../../bench/fixtures/sample-report.js';

const REPORT = reportFrom([
  {
    candidate: plannedCandidate('c5-large', 'ml.c5.large', 0.102),
    steps: [{ load: 1, tps: 280, medianMs: 3.2, tailMs: 1 }],
  },
  {
    candidate: plannedCandidate('c5-large-neo', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }),
    steps: [{ load: 1, tps: 560, medianMs: 1.6, tailMs: 1 }],
  },
  {
    candidate: plannedCandidate('c5-xlarge', 'ml.c5.xlarge', 0.204),
    outcome: {
      candidateId: 'c5-xlarge',
      status: 'FAILED',
      error: { Error: 'EndpointFailedError', Cause: 'model server (pid 7) was killed by SIGKILL' },
    },
  },
]);

function summary(report: Report = REPORT): string {
  return formatSummary({
    report,
    servers: new Map([
      ['c5-large', { workers: 1, intraOpThreads: 2, capped: false }],
      ['c5-large-neo', { workers: 1, intraOpThreads: 2, capped: false }],
      ['c5-xlarge', { workers: 2, intraOpThreads: 1, capped: true }],
    ]),
    reportPaths: { json: 'runs/r/report.json', markdown: 'runs/r/report.md', html: 'runs/r/report.html' },
    availableCpus: 2,
  });
}

describe('formatSummary', () => {
  it('tabulates every candidate with its server settings, verdict and figures', () => {
    // Act
    const lines = summary().split('\n');

    // Assert
    const header = lines.findIndex((line) => line.trimStart().startsWith('candidate'));
    expect(lines[header]?.split(/\s{2,}/).filter(Boolean)).toEqual([
      'candidate',
      'instance',
      'compiled',
      'server',
      'verdict',
      'req/s',
      'p50 ms',
      'p95 ms',
      '$/1M inf.',
    ]);
    expect(
      lines[header + 2]
        ?.split(/\s{2,}/)
        .filter(Boolean)
        .slice(0, 6),
    ).toEqual(['c5-large', 'ml.c5.large', 'no', '1×2', 'runner-up', '280']);
    expect(
      lines[header + 3]
        ?.split(/\s{2,}/)
        .filter(Boolean)
        .slice(0, 6),
    ).toEqual(['c5-large-neo', 'ml.c5.large', 'ml_c5', '1×2', 'recommended', '560']);
    expect(lines[header + 4]?.split(/\s{2,}/).filter(Boolean)).toEqual([
      'c5-xlarge',
      'ml.c5.xlarge',
      'no',
      '2×1*',
      'failed',
      '-',
      '-',
      '-',
      '-',
    ]);
  });

  it('names the optimization job an optimized candidate served in the compiled column', () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('g5-awq', 'ml.g5.xlarge', 1.006, { optimizedBy: 'g5-awq' }),
        steps: [{ load: 1, tps: 30, medianMs: 20, tailMs: 1 }],
      },
    ]);

    // Act
    const lines = summary(report).split('\n');

    // Assert
    const header = lines.findIndex((line) => line.trimStart().startsWith('candidate'));
    expect(
      lines[header + 2]
        ?.split(/\s{2,}/)
        .filter(Boolean)
        .slice(0, 3),
    ).toEqual(['g5-awq', 'ml.g5.xlarge', 'opt g5-awq']);
  });

  it('adds each candidate’s answers after its verdict, and the guard’s rule, when the run had a quality guard', () => {
    // Prepare: the compiled candidate's answers failed the rule against c5-large's.
    const rule = { kind: 'classifier' as const, topK: 1, minAgreementRate: 0.99 };
    const report: Report = {
      ...REPORT,
      quality: {
        referenceCandidateId: 'c5-large',
        rule,
        allowUnknown: false,
        worstExamples: 5,
        ruleText: 'classifier: the same top class in at least 99 % of rows',
        distanceUnit: 'worst row',
      },
      candidates: REPORT.candidates.map((candidate) =>
        candidate.id !== 'c5-large-neo'
          ? candidate
          : {
              ...candidate,
              verdict: 'quality-failed' as const,
              quality: {
                candidateId: 'c5-large-neo',
                referenceId: 'c5-large',
                verdict: 'quality-failed' as const,
                figures: { inputsCompared: 8, inputsLeftOut: 0, agreementRate: 0.5, rowsCompared: 8 },
                worstExampleCount: 0,
                notes: [],
              },
            },
      ),
    };

    // Act
    const lines = summary(report).split('\n');

    // Assert
    const header = lines.findIndex((line) => line.trimStart().startsWith('candidate'));
    const cells = (line: string | undefined) => line?.split(/\s{2,}/).filter(Boolean) ?? [];
    expect({
      header: cells(lines[header]).slice(4, 6),
      reference: cells(lines[header + 2]).slice(4, 6),
      compiled: cells(lines[header + 3]).slice(4, 6),
      rule: lines.includes(
        "  answers: answers compared with c5-large's by the rule classifier: the same top class in at least 99 % of rows; a candidate whose answers fail the rule or cannot be judged is not recommended",
      ),
    }).toEqual({
      header: ['verdict', 'answers'],
      reference: ['runner-up', 'reference'],
      compiled: ['quality-failed', 'quality-failed: top-1 agreement 50 % over 8 rows'],
      rule: true,
    });
  });

  it('compares the compiled candidate with the uncompiled one on the same instance type', () => {
    // Act
    const text = summary();

    // Assert
    expect(text).toMatch(
      /compiled vs uncompiled on ml\.c5\.large \(c5-large → c5-large-neo, load 1\): p50 3\.\d+ → 1\.\d+ ms \(-5\d %\), 280 → 560 req\/s/,
    );
  });

  it('gives each candidate’s reason, the recommendation and the report paths', () => {
    // Act
    const text = summary();

    // Assert
    expect(text).toContain(
      '  c5-xlarge: failed: EndpointFailedError: model server (pid 7) was killed by SIGKILL',
    );
    expect(text).toMatch(/Recommendation: c5-large-neo — ≤ \$\d+\.\d+ per 1M inferences/);
    expect(text).toContain('* = the instance has more vCPUs than this machine has cores');
    expect(text).toContain('Reports:\n  runs/r/report.json\n  runs/r/report.md\n  runs/r/report.html\n');
  });

  it('answers the SLA’s target TPS in one line after the recommendation', () => {
    // Act
    const lines = summary().split('\n');

    // Assert: ⌈1000 ÷ (560 × 0.7)⌉ = 3 × $0.102 = $0.306/h; ÷ (1000 × 3600) × 10⁶ = $0.085 per 1M
    const recommendation = lines.findIndex((line) => line.startsWith('Recommendation: '));
    expect(lines[recommendation + 1]).toBe(
      'Serve 1000 TPS: 3 × ml.c5.large: $0.3060/h, $0.0850 per 1M inferences at 1000 TPS (candidate c5-large-neo) ' +
        '(not proven: measured, not tested at the target)',
    );
  });

  it('gives the ramp test in one line after the target’s', () => {
    // Prepare
    const report = withRamp(REPORT, notHeldRamp());

    // Act
    const lines = summary(report).split('\n');

    // Assert
    const serve = lines.findIndex((line) => line.startsWith('Serve 1000 TPS: '));
    expect(lines[serve + 1]).toBe(
      'Ramp test 140 → 600 TPS over 600 s on 2–9 × ml.c5.large: SLA broken 4 min; scale-outs 2 → 4 (after 200 s), ' +
        '4 → 7 (after 160 s), 7 → 9 (after 60 s): see the report',
    );
  });

  it('brackets a repeated candidate’s req/s with where a re-run is expected, and says so under the table', () => {
    // Prepare: c5-large-neo measured three times (540–570), the run's noise 2 % over 6 degrees of
    // freedom: ±5.1 % between two medians of three (2.4469 × 0.02 × √(π/3) = 0.05008).
    const report = {
      ...REPORT,
      noise: { confidence: 0.95, candidates: 3, tps: { logSd: 0.02, degreesOfFreedom: 6 } },
      candidates: REPORT.candidates.map((candidate) =>
        candidate.id === 'c5-large-neo'
          ? {
              ...candidate,
              spread: {
                n: 3,
                metSla: 3,
                tps: { min: 540, median: 560, max: 570 },
                p95Ms: { min: 1.5, median: 1.6, max: 1.7 },
                rerun: { tps: { min: 532.6, max: 588.8 } },
              },
            }
          : candidate,
      ),
    };

    // Act
    const lines = formatSummary({
      report,
      servers: new Map(),
      reportPaths: { json: 'j', markdown: 'm', html: 'h' },
      availableCpus: 2,
    }).split('\n');

    // Assert
    const row = lines.find((line) => line.trimStart().startsWith('c5-large-neo'));
    expect(row?.split(/\s{2,}/).filter(Boolean)[5]).toBe('560 (533–589)');
    expect(lines).toContain(
      "  req/s: the median of 3 measurements (where a re-run's median is expected, 95 %: this run's noise, ±5.1 %, pooled over 3 candidate(s))",
    );
  });

  it('says how a Model Registry run compares with the last approved version, its report as a file', () => {
    // Prepare
    const text =
      'Regressed versus version 3 (run approved-fraud-v3): c5-large-neo (recommended by approved-fraud-v3): worse: TPS 600.0 → 560.0 (-6.7 %), no spread measured.';
    const report: Report = {
      ...REPORT,
      modelPackage: {
        groupName: 'fraud',
        version: 4,
        arn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/fraud/4',
      },
      baselineComparison: {
        verdict: 'regressed',
        text,
        baseline: {
          runId: 'approved-fraud-v3',
          modelPackageVersion: 3,
          modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/fraud/3',
          reportUri: 's3://local-artifacts/runs/approved-fraud-v3/report.json',
        },
        baselineReportFile: '/work/runs/approved-fraud-v3/report.json',
      },
    };

    // Act
    const lines = summary(report).split('\n');

    // Assert
    const verdict = lines.indexOf(text);
    expect(lines.slice(verdict, verdict + 2)).toEqual([
      text,
      '  Baseline report: /work/runs/approved-fraud-v3/report.json',
    ]);
  });
});

describe('formatSummary of streamed responses', () => {
  it('gives each streamed candidate’s TTFT, ITL, output tokens/s and cost per 1M output tokens', () => {
    // Prepare: c5-large-neo streamed 32 tokens per request at its sustainable load (not saturated: ≤).
    const stream = {
      format: 'tgi' as const,
      ttftMs: { p50: 22.71, p90: 24, p95: 24.42, p99: 26, max: 30 },
      itlMs: { p50: 1.804, p90: 2.1, p95: 2.371, p99: 3, max: 5 },
      outputTokens: 17_920,
      outputTokensPerSecond: 17_920,
      outputTokensPerRequest: 32,
      outputTokenSource: 'server' as const,
      withoutToken: 0,
    };
    const report: Report = {
      ...REPORT,
      candidates: REPORT.candidates.map((candidate) =>
        candidate.id === 'c5-large-neo'
          ? {
              ...candidate,
              costPer1MOutputTokensUsd: 0.0016,
              steps: candidate.steps.map((step) => ({ ...step, stream })),
            }
          : candidate,
      ),
    };

    // Act
    const lines = summary(report).split('\n');

    // Assert
    const start = lines.indexOf('  Streamed responses at the sustainable load:');
    expect(lines.slice(start, start + 2)).toEqual([
      '  Streamed responses at the sustainable load:',
      '  c5-large-neo: TTFT p50/p95 22.7/24.4 ms, ITL p50/p95 1.80/2.37 ms, 17920 output tokens/s, ≤ $0.0016 per 1M output tokens',
    ]);
  });

  it("adds a streamed candidate's time per output token when its report has one", () => {
    // Prepare
    const stream = {
      format: 'tgi' as const,
      ttftMs: { p50: 22.71, p90: 24, p95: 24.42, p99: 26, max: 30 },
      itlMs: { p50: 1.804, p90: 2.1, p95: 2.371, p99: 3, max: 5 },
      tpotMs: { p50: 1.9, p90: 2.2, p95: 2.4, p99: 3, max: 5 },
      outputTokens: 17_920,
      outputTokensPerSecond: 17_920,
      outputTokensPerRequest: 32,
      outputTokenSource: 'server' as const,
      withoutToken: 0,
    };
    const report: Report = {
      ...REPORT,
      candidates: REPORT.candidates.map((candidate) =>
        candidate.id === 'c5-large-neo'
          ? { ...candidate, steps: candidate.steps.map((step) => ({ ...step, stream })) }
          : candidate,
      ),
    };

    // Act
    const lines = summary(report).split('\n');

    // Assert
    expect(lines).toContain(
      '  c5-large-neo: TTFT p50/p95 22.7/24.4 ms, ITL p50/p95 1.80/2.37 ms, time per output token p50 1.90 ms, 17920 output tokens/s',
    );
  });

  it('names every SLA bound the input set in its first line', () => {
    // Prepare
    const report: Report = { ...REPORT, sla: { ttftP95Ms: 150, itlP95Ms: 15, maxErrorRate: 0.01 } };

    // Act
    const line = summary(report)
      .split('\n')
      .find((text) => text.startsWith('Summary of run'));

    // Assert
    expect(line).toContain(
      ': SLA time to first token p95 ≤ 150 ms, inter-token latency p95 ≤ 15 ms, error rate ≤ 0.01, objective',
    );
  });
});

describe('formatSummary of a miss and a busy machine', () => {
  const NEAR_MISS: Report = {
    ...REPORT,
    candidates: REPORT.candidates.map((candidate) =>
      candidate.id === 'c5-large'
        ? { ...candidate, verdict: 'missed-sla', nearMiss: { slaRatio: 1.03, noisePercent: 8.1 } }
        : candidate,
    ),
  };
  const BUSY = {
    cores: 2,
    before: { loadPerCore: 1.6, procsRunning: 4 },
    busyBecause: ['3 other task(s) running on 2 cores as the run started'],
  };

  it('calls a miss within the run noise a near miss in the verdict column', () => {
    // Act
    const row = summary(NEAR_MISS)
      .split('\n')
      .find((line) => line.trimStart().startsWith('c5-large '));

    // Assert
    expect(row?.split(/\s{2,}/).filter(Boolean)[4]).toBe('missed-sla (near miss)');
  });

  it("says the machine was busy right after the verdict, and that a miss may be the machine's", () => {
    // Act
    const lines = summary({ ...REPORT, machineLoad: BUSY }).split('\n');
    const verdict = lines.findIndex((line) => line.startsWith('Recommendation: '));

    // Assert
    expect(lines[verdict + 1]).toBe(
      "The machine was busy (3 other task(s) running on 2 cores as the run started): a miss may be the machine's, not the candidate's. " +
        'Other processes shared the cores the candidates were measured on, so throughput reads lower and latency higher than on a quiet machine; run again when it is quieter to confirm.',
    );
  });

  it('says nothing of the machine when it was quiet', () => {
    expect(summary({ ...REPORT, machineLoad: { ...BUSY, busyBecause: [] } })).not.toContain('busy');
  });
});
