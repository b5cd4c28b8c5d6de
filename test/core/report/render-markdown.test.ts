import { describe, expect, it } from '@jest/globals';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import {
  plannedCandidate,
  reportFrom,
  SAMPLE_LOAD_PLAN,
  sampleReport,
  XSS_VALUE,
} from '../../../bench/fixtures/sample-report.js';
import { escapeMarkdown, markdownCode } from '../../../core/report/markdown-text.js';

/** Splits a Markdown table row into its cells at the `|` that are not escaped. */
function cellsOf(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

function lineStartingWith(markdown: string, prefix: string): string {
  const line = markdown.split('\n').find((candidate) => candidate.startsWith(prefix));
  if (line === undefined) throw new Error(`no line starts with ${JSON.stringify(prefix)} in:\n${markdown}`);
  return line;
}

describe('renderMarkdownReport', () => {
  it('states the recommendation with its figures in one paragraph', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    const paragraph = lineStartingWith(markdown, 'Deploy ');
    expect(paragraph).toBe(
      'Deploy c2-c5-xlarge-neo: ml.c5.xlarge × 1, compiled for ml_c5, environment OMP_NUM_THREADS=4. ' +
        'It sustained 640.0 TPS within the SLA (p95 18.6 ms, p99 22.0 ms at that load), at $0.0885 per 1M ' +
        'inferences; 3 instances of it carry the target of 1000 TPS. ' +
        'Why: $0.0885 per 1M inferences, best of 2 candidate(s) that met the SLA.',
    );
  });

  it('puts one summary row per candidate with its deployment, verdict and figures', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    expect(cellsOf(lineStartingWith(markdown, '| c2-c5-xlarge-neo |'))).toEqual([
      'c2-c5-xlarge-neo',
      'ml.c5.xlarge × 1',
      'yes, for ml_c5',
      '`OMP_NUM_THREADS=4`',
      'recommended',
      '640.0',
      '18.6',
      '22.0',
      '$0.2040 (price table)',
      '$0.0885',
      // ⌈1000 ÷ (640 × 0.7 headroom)⌉ = 3 (target-sizing.ts)
      '3',
    ]);
    expect(cellsOf(lineStartingWith(markdown, '| c5-g4dn-xlarge |'))).toEqual([
      'c5-g4dn-xlarge',
      'ml.g4dn.xlarge × 1',
      'no',
      '—',
      'failed',
      '—',
      '—',
      '—',
      '$0.7360 (price table)',
      '—',
      '—',
    ]);
  });

  it('shows the measured-locally banner for a local run', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport({ measuredLocally: true }));

    // Assert
    expect(markdown).toContain("> **Measured locally: these figures come from this machine's CPU");
  });

  it('shows no measured-locally banner for a run on AWS', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport({ measuredLocally: false }));

    // Assert
    expect(markdown).not.toContain('Measured locally');
  });

  it('lists every load step of a candidate and marks the sustainable one', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    const section = markdown.slice(
      markdown.indexOf('### c1-c5-xlarge'),
      markdown.indexOf('### c2-c5-xlarge-neo'),
    );
    const rows = section.split('\n').filter((line) => /^\| \d/.test(line));
    expect(rows.map((row) => cellsOf(row)[0])).toEqual(['1', '2', '4', '8']);
    expect(cellsOf(rows[1] ?? '')).toEqual([
      '2',
      '4140',
      '138.0',
      '0.00%',
      '13.8',
      '16.6',
      '19.3',
      '21.6',
      '22.2',
      '0',
      'met (sustainable)',
    ]);
    expect(cellsOf(rows[2] ?? '').at(-1)).toBe('missed: p95 24.591 ms > SLA 20 ms');
  });

  it('adds late and dropped columns for an open-model load plan', () => {
    // Prepare
    const report = reportFrom(
      [
        {
          candidate: plannedCandidate('c1-c5-large', 'ml.c5.large', 0.102),
          steps: [{ load: 50, tps: 50, medianMs: 5, tailMs: 1 }],
        },
      ],
      { plan: { loadPlan: { ...SAMPLE_LOAD_PLAN, model: 'open', steps: [50] } } },
    );

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(cellsOf(lineStartingWith(markdown, '| Arrival rate'))).toEqual([
      'Arrival rate (req/s)',
      'Requests',
      'TPS',
      'Error rate',
      'p50 ms',
      'p90 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'Late',
      'Dropped',
      'Errors model/throttled/timeout/client',
      'SLA',
    ]);
  });

  it('quotes the first error samples of a step that had errors, and the reason line', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    expect(markdown).toContain(
      '- load 1: model-error (HTTP 500): worker count \\<img src=x onerror=alert(1)> is not a number \\| traceback…',
    );
    expect(markdown).toContain(
      '**Reason:** failed: EndpointFailedError: endpoint mso-run-ab12cd34-ep-c5-g4dn-xlarge is Failed: ResourceLimitExceeded',
    );
  });

  it('escapes | inside table cells so the columns stay in place', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    const row = cellsOf(lineStartingWith(markdown, '| c4-c5-large |'));
    expect(row).toHaveLength(11);
    expect(row[3]).toBe(`\`SAGEMAKER_MODEL_SERVER_WORKERS=${XSS_VALUE}, PIPE=a\\|b\``);
  });

  it('gives the reason when no candidate is recommended', () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('c1-m5-large', 'ml.m5.large', 0.115),
        steps: [{ load: 1, tps: 40, medianMs: 30, tailMs: 10 }],
      },
    ]);

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(markdown).toContain(
      'No recommendation: no candidate met the SLA at any load step; try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA.',
    );
    expect(markdown).not.toContain('Deploy ');
  });

  it('states where an existing endpoint disagreed with the run input, among the candidate’s facts', () => {
    // Prepare
    const report = sampleReport();
    const [first, ...others] = report.candidates;
    if (first === undefined) throw new Error('expected a candidate in the sample report');
    const note =
      'existingEndpoint says ml.m5.large × 1, the endpoint has ml.c5.xlarge × 3: costed as the endpoint is';

    // Act
    const markdown = renderMarkdownReport({
      ...report,
      candidates: [{ ...first, configurationNote: note }, ...others],
    });

    // Assert
    expect(lineStartingWith(markdown, '- Configuration:')).toBe(`- Configuration: ${escapeMarkdown(note)}`);
  });

  it('states the price table, its date and the run cost', () => {
    // Act
    const markdown = renderMarkdownReport(sampleReport());

    // Assert
    expect(markdown).toContain(
      'us-east-1, recorded on 2025-10-01 (https://aws.amazon.com/sagemaker/pricing/)',
    );
    expect(markdown).toContain(
      'Endpoint cost of this run: $0.0210 (measured locally: no AWS cost was incurred',
    );
  });
});

describe('escapeMarkdown', () => {
  it('backslash-escapes characters that would turn user text into markup, and flattens line breaks', () => {
    // Act
    const escaped = escapeMarkdown('a|b *c* [d](e) <f>\nnext `g`');

    // Assert
    expect(escaped).toBe('a\\|b \\*c\\* \\[d\\](e) \\<f> next \\`g\\`');
  });
});

describe('markdownCode', () => {
  it('fences text holding backticks with a longer run, padded when it starts with one', () => {
    // Act
    const code = markdownCode('`a`` b|c');

    // Assert
    expect(code).toBe('``` `a`` b\\|c ```');
  });
});

describe('renderMarkdownReport of streamed responses', () => {
  it('adds TTFT, ITL and output tokens/s to the step table and a streamed fact line', () => {
    // Prepare: one candidate whose steps streamed 32 tokens per request.
    const base = reportFrom([
      {
        candidate: plannedCandidate('c5-neo', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }),
        steps: [{ load: 2, tps: 40, medianMs: 8, tailMs: 2 }],
      },
    ]);
    const stream = {
      format: 'tgi' as const,
      ttftMs: { p50: 22.7, p90: 24, p95: 24.4, p99: 26, max: 30 },
      itlMs: { p50: 1.8, p90: 2.1, p95: 2.37, p99: 3, max: 5 },
      outputTokens: 1280,
      outputTokensPerSecond: 1280,
      outputTokensPerRequest: 32,
      outputTokenSource: 'counted' as const,
      withoutToken: 0,
    };
    const report = {
      ...base,
      candidates: base.candidates.map((candidate) => ({
        ...candidate,
        costPer1MOutputTokensUsd: 0.0221,
        steps: candidate.steps.map((step) => ({ ...step, stream })),
      })),
    };

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    const header = cellsOf(lineStartingWith(markdown, '| Concurrency'));
    const row = cellsOf(lineStartingWith(markdown, '| 2 |'));
    const at = (name: string): string | undefined => row[header.indexOf(name)];
    expect(['TTFT p50 ms', 'TTFT p95 ms', 'ITL p50 ms', 'ITL p95 ms', 'Output tokens/s'].map(at)).toEqual([
      '22.7',
      '24.4',
      '1.80',
      '2.37',
      '1280.0',
    ]);
    expect(lineStartingWith(markdown, '- Streamed')).toBe(
      '- Streamed (tgi) at load 2: time to first token p50 22.7 / p95 24.4 / p99 26.0 ms; inter-token latency p50 1.80 / p95 2.37 / p99 3.00 ms; 1280.0 output tokens/s, 32.0 per request (counted as the stream delivered them); cost per 1M output tokens ≤ $0.0221',
    );
    // Results of earlier versions have no time per output token: no line for it.
    expect(markdown).not.toContain('Time per output token');
  });

  it("gives a streamed candidate's time per output token per request, and the decode speed it means", () => {
    // Prepare
    const base = reportFrom([
      {
        candidate: plannedCandidate('c5-neo', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }),
        steps: [{ load: 2, tps: 40, medianMs: 8, tailMs: 2 }],
      },
    ]);
    const stream = {
      format: 'tgi' as const,
      ttftMs: { p50: 22.7, p90: 24, p95: 24.4, p99: 26, max: 30 },
      itlMs: { p50: 1.8, p90: 2.1, p95: 2.37, p99: 3, max: 5 },
      tpotMs: { p50: 2, p90: 2.4, p95: 2.5, p99: 4, max: 5 },
      outputTokens: 1280,
      outputTokensPerSecond: 1280,
      outputTokensPerRequest: 32,
      outputTokenSource: 'server' as const,
      withoutToken: 0,
    };
    const report = {
      ...base,
      candidates: base.candidates.map((candidate) => ({
        ...candidate,
        steps: candidate.steps.map((step) => ({ ...step, stream })),
      })),
    };

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(lineStartingWith(markdown, '- Time per output token')).toBe(
      '- Time per output token, per request: p50 2.00 / p95 2.50 / p99 4.00 ms (a median request decodes 500.0 tokens/s, the slowest 5 % below 400.0)',
    );
  });
});
