import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses, type CandidateOutcome } from '../../../core/contracts/optimization-state.js';
import type {
  PlannedQuality,
  QualityExample,
  QualityVerdictSummary,
} from '../../../core/contracts/quality.js';
import { buildReport } from '../../../core/report/build-report.js';
import { formatPlan } from '../../../core/report/plan-summary.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

// Both steps meet the sample SLA; the compiled candidate carries twice the load on the same instance.
const SLOW = [
  stepResult({ load: 1, tps: 100, medianMs: 4, tailMs: 2 }),
  stepResult({ load: 4, tps: 200, medianMs: 8, tailMs: 4 }),
];
const FAST = [
  stepResult({ load: 1, tps: 200, medianMs: 2, tailMs: 1 }),
  stepResult({ load: 4, tps: 400, medianMs: 4, tailMs: 2 }),
];

const QUALITY: PlannedQuality = {
  referenceCandidateId: 'c5',
  rule: { kind: 'classifier', topK: 1, minAgreementRate: 0.99 },
  allowUnknown: false,
  worstExamples: 5,
};

const WORST: readonly QualityExample[] = [
  {
    inputId: 'payload-3',
    distance: 1,
    reference: '[0.1, 0.7, 0.2]',
    candidate: '[0.6, 0.1, 0.3]',
    problem: 'top class 0 instead of 1',
  },
];

/** The reference's own verdict, as "Judge output quality" gives it: its answers are the rule's yardstick. */
const REFERENCE_PASSED: QualityVerdictSummary = {
  candidateId: 'c5',
  referenceId: 'c5',
  verdict: 'passed',
  figures: { inputsCompared: 64, inputsLeftOut: 0, agreementRate: 1, rowsCompared: 64 },
  worstExampleCount: 0,
  notes: [],
};

function verdict(
  status: QualityVerdictSummary['verdict'],
  overrides: Partial<QualityVerdictSummary> = {},
): QualityVerdictSummary {
  return {
    candidateId: 'c5-neo',
    referenceId: 'c5',
    verdict: status,
    figures: { inputsCompared: 64, inputsLeftOut: 0, agreementRate: 0.75, rowsCompared: 64 },
    worstExampleCount: 1,
    notes: [],
    ...overrides,
  };
}

/** The reference (c5) and a compiled candidate twice as fast on the same instance, with its verdict. */
function reportWith(candidateVerdict: QualityVerdictSummary | undefined, quality: PlannedQuality = QUALITY) {
  const outcomes: CandidateOutcome[] = [
    { candidateId: 'c5', status: CandidateStatuses.measured, quality: REFERENCE_PASSED },
    {
      candidateId: 'c5-neo',
      status: CandidateStatuses.measured,
      ...(candidateVerdict === undefined ? {} : { quality: candidateVerdict }),
    },
  ];
  return buildReport({
    plan: runPlan(
      [
        plannedCandidate('c5', 'ml.c5.xlarge', 0.204),
        plannedCandidate('c5-neo', 'ml.c5.xlarge', 0.204, { compiledFor: 'ml_c5' }),
      ],
      { quality },
    ),
    outcomes,
    results: new Map([
      ['c5', loadTestResult(SLOW)],
      ['c5-neo', loadTestResult(FAST)],
    ]),
    measuredLocally: false,
    generatedAt: '2026-11-28T10:05:00Z',
    qualityExamples: new Map([['c5-neo', WORST]]),
  });
}

describe('the report of a run with a quality guard', () => {
  it('recommends the faster candidate when its answers pass', () => {
    // Act
    const report = reportWith(
      verdict('passed', { figures: { inputsCompared: 64, inputsLeftOut: 0, agreementRate: 1 } }),
    );

    // Assert
    expect([report.recommendation?.candidateId, report.candidates[1]?.verdict]).toEqual([
      'c5-neo',
      'recommended',
    ]);
  });

  it('refuses a faster candidate whose answers fail the rule, naming its figures, and recommends the reference', () => {
    // Act
    const report = reportWith(verdict('quality-failed', { reason: 'top-1 agreement 75 % < 99 %' }));

    // Assert
    expect({
      recommended: report.recommendation?.candidateId,
      verdict: report.candidates[1]?.verdict,
      reason: report.candidates[1]?.reason,
      counts: report.counts['quality-failed'],
      outcome: report.outcome,
    }).toEqual({
      recommended: 'c5',
      verdict: 'quality-failed',
      reason:
        'met the SLA, but its answers broke the output-quality rule (classifier) against the reference c5: top-1 agreement 75 % < 99 %; not saturated: every step met the SLA up to load 4 (the load plan ended), so the capacity is at least 400 TPS; add higher load steps to find it',
      counts: 1,
      outcome: 'recommended',
    });
  });

  it('keeps an unjudged candidate out of the ranking unless the input allows it', () => {
    // Prepare
    const unknown = verdict('unknown', {
      reason: 'the scorer timed out after 30 s',
      figures: { inputsCompared: 0, inputsLeftOut: 64 },
    });

    // Act
    const refused = reportWith(unknown);
    const allowed = reportWith(unknown, { ...QUALITY, allowUnknown: true });

    // Assert
    expect([
      refused.candidates[1]?.verdict,
      refused.outcome,
      allowed.candidates[1]?.verdict,
      allowed.recommendation?.candidateId,
    ]).toEqual(['quality-unknown', 'partial', 'recommended', 'c5-neo']);
  });

  it('says why nothing is recommended when every candidate that met the SLA was refused for its answers', () => {
    // Prepare: the reference failed to deploy, so the compiled candidate could not be compared.
    const report = buildReport({
      plan: runPlan(
        [
          plannedCandidate('c5', 'ml.c5.xlarge', 0.204),
          plannedCandidate('c5-neo', 'ml.c5.xlarge', 0.204, { compiledFor: 'ml_c5' }),
        ],
        { quality: QUALITY },
      ),
      outcomes: [
        {
          candidateId: 'c5',
          status: CandidateStatuses.failed,
          error: { Error: 'EndpointFailedError', Cause: 'boom' },
        },
        {
          candidateId: 'c5-neo',
          status: CandidateStatuses.measured,
          quality: verdict('unknown', {
            reason: 'the reference c5 failed to deploy',
            figures: { inputsCompared: 0, inputsLeftOut: 64 },
          }),
        },
      ],
      results: new Map([['c5-neo', loadTestResult(FAST)]]),
      measuredLocally: false,
      generatedAt: '2026-11-28T10:05:00Z',
    });

    // Assert
    expect([report.recommendation, report.noRecommendationReason]).toEqual([
      null,
      'every candidate that met the SLA was left out by the output-quality guard: its answers broke the rule against the reference c5, or could not be judged (see each reason)',
    ]);
  });

  it('shows the rule, each candidate’s answers beside its figures and the worst answers in report.md and report.html', async () => {
    // Prepare
    const report = reportWith(verdict('quality-failed'));

    // Act
    const markdown = renderMarkdownReport(report);
    const html = await renderHtmlReport(report);

    // Assert
    expect({
      rule: report.quality?.ruleText,
      section: markdown.includes('## Output quality'),
      answersColumn: markdown.includes('| Answers |'),
      failedCell: markdown.includes('quality-failed: top-1 agreement 75 % over 64 rows'),
      example: markdown.includes('top class 0 instead of 1'),
      htmlSection: html.includes('<h2>Output quality</h2>'),
      htmlBadge: html.includes('<span class="verdict quality-failed">failed the quality rule</span>'),
    }).toEqual({
      rule: 'classifier: the same top class in at least 99 % of rows',
      section: true,
      answersColumn: true,
      failedCell: true,
      example: true,
      htmlSection: true,
      htmlBadge: true,
    });
  });

  it('says nothing of answers in a run without a guard', () => {
    // Act
    const report = buildReport({
      plan: runPlan([plannedCandidate('c5', 'ml.c5.xlarge', 0.204)]),
      outcomes: [{ candidateId: 'c5', status: CandidateStatuses.measured }],
      results: new Map([['c5', loadTestResult(SLOW)]]),
      measuredLocally: false,
      generatedAt: '2026-11-28T10:05:00Z',
    });

    // Assert
    expect(['quality' in report, renderMarkdownReport(report).includes('Output quality')]).toEqual([
      false,
      false,
    ]);
  });

  it('states the guard in the plan', () => {
    // Act
    const text = formatPlan({
      plan: runPlan([plannedCandidate('c5', 'ml.c5.xlarge', 0.204)], { quality: QUALITY }),
      runCommand: 'npm start',
    });

    // Assert
    expect(text).toContain(
      "  Quality guard: answers compared with c5's by the rule classifier: the same top class in at least 99 % of rows; " +
        'a candidate whose answers fail the rule or cannot be judged is not recommended.',
    );
  });

  it('names a quantized compile beside its target, in the report and in the plan', () => {
    // Prepare
    const quantization = { type: 'int8', calibrationRange: [0, 1], calibrationSamples: 16 } as const;
    const plan = runPlan(
      [
        plannedCandidate('c5', 'ml.c5.xlarge', 0.204),
        plannedCandidate('c5-int8', 'ml.c5.xlarge', 0.204, { compiledFor: 'ml_c5' }),
      ],
      {
        quality: QUALITY,
        compilations: [
          {
            target: 'ml_c5',
            jobName: 'mso-nightly-cj-ml-c5',
            outputUri: 's3://mso-artifacts/runs/nightly-2026-11-22/compiled/ml_c5/',
            quantization: { ...quantization, calibrationRange: [0, 1] },
          },
        ],
      },
    );

    // Act
    const report = buildReport({
      plan,
      outcomes: [
        { candidateId: 'c5', status: CandidateStatuses.measured, quality: REFERENCE_PASSED },
        { candidateId: 'c5-int8', status: CandidateStatuses.measured, quality: verdict('quality-failed') },
      ],
      results: new Map([
        ['c5', loadTestResult(SLOW)],
        ['c5-int8', loadTestResult(FAST)],
      ]),
      measuredLocally: true,
      generatedAt: '2026-11-28T10:05:00Z',
    });
    const planText = formatPlan({ plan, runCommand: 'npm start' });

    // Assert
    expect(report.candidates[1]?.quantization).toEqual(quantization);
    // Markdown escapes the brackets.
    expect(renderMarkdownReport(report)).toContain(
      'yes, for ml_c5 (int8, calibrated on 16 input(s) in \\[0, 1\\])',
    );
    expect(planText).toContain(
      'ml_c5 quantized to int8, calibrated on 16 input(s) in [0, 1] (job mso-nightly-cj-ml-c5)',
    );
  });
});
