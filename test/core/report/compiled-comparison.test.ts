import { describe, expect, it } from '@jest/globals';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import { plannedCandidate, reportFrom } from '../../../bench/fixtures/sample-report.js';

const PAIR = reportFrom([
  {
    candidate: plannedCandidate('c5-large', 'ml.c5.large', 0.102),
    steps: [{ load: 1, tps: 280, medianMs: 3.2, tailMs: 1 }],
  },
  {
    candidate: plannedCandidate('c5-large-neo', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }),
    steps: [{ load: 1, tps: 560, medianMs: 1.6, tailMs: 1 }],
  },
]);

describe('compiled vs uncompiled in the report', () => {
  it('pairs the compiled candidate with the uncompiled one on the same instance type, at the first step', () => {
    // Act
    const comparisons = PAIR.compiledComparisons;

    // Assert
    const uncompiled = PAIR.candidates[0]?.steps[0]?.latencyMs?.p50 ?? Number.NaN;
    const compiled = PAIR.candidates[1]?.steps[0]?.latencyMs?.p50 ?? Number.NaN;
    expect(comparisons).toEqual([
      {
        instanceType: 'ml.c5.large',
        uncompiledId: 'c5-large',
        compiledId: 'c5-large-neo',
        compiledFor: 'ml_c5',
        load: 1,
        p50Ms: { uncompiled, compiled },
        p50ChangePercent: Math.round((compiled / uncompiled - 1) * 1000) / 10,
        tps: { uncompiled: 280, compiled: 560 },
      },
    ]);
  });

  it('leaves a candidate with no uncompiled twin out', () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('c5-large', 'ml.c5.large', 0.102),
        steps: [{ load: 1, tps: 280, medianMs: 3.2, tailMs: 1 }],
      },
      {
        candidate: plannedCandidate('c5-xlarge-neo', 'ml.c5.xlarge', 0.204, { compiledFor: 'ml_c5' }),
        steps: [{ load: 1, tps: 560, medianMs: 1.6, tailMs: 1 }],
      },
    ]);

    // Act
    const comparisons = report.compiledComparisons;

    // Assert
    expect(comparisons).toBeUndefined();
  });

  it('prints the comparison in report.md and report.html', async () => {
    // Act
    const markdown = renderMarkdownReport(PAIR);
    const html = await renderHtmlReport(PAIR);

    // Assert
    const line =
      /compiled vs uncompiled on ml\.c5\.large \(c5-large → c5-large-neo, load 1\): p50 3\.\d+ → 1\.\d+ ms \(-5\d %\), 280 → 560 req\/s/;
    expect(markdown).toContain('## Compiled vs uncompiled');
    expect(markdown).toMatch(new RegExp(`\\n- ${line.source}\\n`));
    expect(html).toContain('<h2>Compiled vs uncompiled</h2>');
    expect(html).toMatch(new RegExp(`<li>${line.source}</li>`));
  });
});
