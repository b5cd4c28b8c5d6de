import { describe, expect, it } from '@jest/globals';
import { logger, Warn } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import { heatmapData, sweepHeatmapSpec } from '../../../core/report/sweep-chart.js';
import { withConsoleWarnings } from './support/console-warnings.js';
import {
  plannedCandidate,
  reportFrom,
  sampleReport,
  XSS_VALUE,
} from '../../../bench/fixtures/sample-report.js';
import { BATCH, sweepReport, twentyCandidateReport, WORKERS } from '../../../bench/fixtures/sweep-reports.js';
import type { SweepGrid } from '../../../core/report/report.js';

function gridOf(report: { sweep?: SweepGrid }): SweepGrid {
  if (report.sweep === undefined) throw new Error('expected the report to have a sweep grid');
  return report.sweep;
}

function compileWarnings(spec: TopLevelSpec): string[] {
  const warnings: string[] = [];
  compile(spec, {
    logger: logger(Warn, undefined, (_method, _level, input) => {
      warnings.push(Array.from(input).join(' '));
    }),
  });
  return warnings;
}

describe('sweep heatmap spec', () => {
  it('compiles without Vega-Lite warnings, with panels and without', () => {
    // Prepare
    const specs = [sweepReport(), twentyCandidateReport()].map((report) =>
      sweepHeatmapSpec(gridOf(report), true),
    );

    // Act
    const warnings = specs.map(compileWarnings);

    // Assert
    expect(warnings).toEqual([[], []]);
  });

  it('marks the recommended cell with a star and leaves failed and missed-SLA cells without a value', () => {
    // Prepare
    const grid = gridOf(sweepReport());

    // Act
    const data = heatmapData(grid);

    // Assert
    expect(data.find((datum) => datum.recommended)).toEqual({
      x: '4',
      y: 'ml.c5.xlarge',
      panel: `${BATCH}=1`,
      candidate: 'c5-xlarge-w4-b1',
      verdict: 'recommended',
      value: 0.1133,
      slaRatio: null,
      label: '★ $0.1133',
      recommended: true,
    });
    expect(
      data
        .filter((datum) => datum.value === null)
        .map((datum) => [datum.candidate, datum.label, datum.slaRatio]),
    ).toEqual([
      ['c5-2xlarge-w2-b1', 'failed', null],
      ['c5-xlarge-w4-b8', 'missed SLA 1.65×', 1.65],
    ]);
  });

  it('facets by the other factors and orders both axes by level', () => {
    // Act
    const spec = sweepHeatmapSpec(gridOf(sweepReport()), false) as {
      facet: { row: { field: string; sort: string[] } };
      spec: { encoding: { x: { title: string; sort: string[] }; y: { title: string; sort: string[] } } };
    };

    // Assert
    expect(spec.facet.row).toMatchObject({ field: 'panel', sort: [`${BATCH}=1`, `${BATCH}=8`] });
    expect(spec.spec.encoding.x).toMatchObject({ title: WORKERS, sort: ['1', '2', '4'] });
    expect(spec.spec.encoding.y).toMatchObject({
      title: 'instance type',
      sort: ['ml.c5.xlarge', 'ml.c5.2xlarge'],
    });
  });
});

/** The report page's sweep grid, from its heading to the end of its figure. */
function sweepSection(html: string): string {
  const start = html.indexOf('<h2>Sweep grid</h2>');
  return html.slice(start, html.indexOf('</figure>', start));
}

describe('sweep grid in the reports', () => {
  it('draws the heatmap in report.html with the recommended cell starred and boxed', async () => {
    // Act
    const html = await renderHtmlReport(sweepReport());

    // Assert
    const section = sweepSection(html);
    expect(section).toContain(
      'Sweep: USD per 1M inferences by SAGEMAKER_MODEL_SERVER_WORKERS and instance type',
    );
    expect(section).toContain('★ $0.1133');
    expect(section).toMatch(/stroke="#1b5e20" stroke-width="4"/);
    expect(section).toContain('>missed SLA 1.65×<');
    expect(section).toContain('>failed<');
  });

  it('escapes a malicious level in the heatmap, its intro and the Markdown table', async () => {
    // Prepare: 2 instance types × 2 worker settings, one of them an XSS probe.
    const steps = [{ load: 1, tps: 80, medianMs: 5, tailMs: 1 }];
    const report = reportFrom(
      ['ml.c5.large', 'ml.c5.xlarge'].flatMap((type, i) =>
        ['2', XSS_VALUE].map((workers, j) => ({
          candidate: plannedCandidate(`c${i}${j}`, type, 0.1, { environment: { [WORKERS]: workers } }),
          steps,
        })),
      ),
    );

    // Act
    const [html, markdown] = [await renderHtmlReport(report), renderMarkdownReport(report)];

    // Assert
    expect(report.sweep?.factors.map((factor) => factor.levels)).toEqual([
      ['ml.c5.large', 'ml.c5.xlarge'],
      ['2', XSS_VALUE],
    ]);
    expect(html).not.toContain(XSS_VALUE);
    expect(markdown).toContain(`| ${WORKERS} ↓ / instance type → | ml.c5.large | ml.c5.xlarge |`);
    expect(markdown).toContain('| \\<img src=x onerror=alert(1)> |');
  });

  it('draws the heatmap without a colour legend when no cell has a figure, and Vega warns of nothing', async () => {
    // Prepare: every candidate of the grid missed the SLA, so no cell has a cost to shade by.
    const report = sweepReport();
    const grid = gridOf(report);
    const noFigure: SweepGrid = {
      ...grid,
      cells: grid.cells.map(({ candidateId, levels }) => ({
        candidateId,
        levels,
        verdict: 'missed-sla',
        text: 'missed SLA',
      })),
    };
    const { recommendedCandidateId: _none, ...withoutRecommendation } = noFigure;

    // Act
    const { result: html, warnings } = await withConsoleWarnings(() =>
      renderHtmlReport({ ...report, sweep: withoutRecommendation }),
    );

    // Assert
    const section = sweepSection(html);
    expect(section).toContain('>missed SLA<');
    expect(section).not.toContain('NaN');
    expect(section).not.toContain('Gradient legend');
    expect(warnings).toEqual([]);
  });

  it('draws no grid for a run whose candidates do not form one', async () => {
    // Act
    const html = await renderHtmlReport(sampleReport());

    // Assert
    expect(sampleReport().sweep).toBeUndefined();
    expect(html).not.toContain('Sweep grid');
  });

  it('prints one table per panel in report.md, the recommendation starred and bold', () => {
    // Act
    const markdown = renderMarkdownReport(sweepReport());

    // Assert
    const section = markdown.slice(markdown.indexOf('## Sweep grid'), markdown.indexOf('## Candidates'));
    expect(section).toBe(
      [
        '## Sweep grid',
        '',
        `USD per 1M inferences (lower is better) by ${WORKERS} (columns) and instance type (rows), one panel per ${BATCH}; ★ marks the recommendation; a cell without a figure says why (missed SLA, model errors, failed, skipped); a missed SLA gives how far: the closest step's p95 ÷ the SLA's (or p99's), e.g. 1.03×, and a near miss is one within the run's noise; —: no candidate ran with those settings.`,
        '',
        `### ${BATCH}=1`,
        '',
        `| instance type ↓ / ${WORKERS} → | 1 | 2 | 4 |`,
        '| --- | ---: | ---: | ---: |',
        '| ml.c5.xlarge | $0.4533 | $0.2267 | **★ $0.1133** |',
        '| ml.c5.2xlarge | $0.8095 | failed | ≤ $0.2024 |',
        '',
        `### ${BATCH}=8`,
        '',
        `| instance type ↓ / ${WORKERS} → | 1 | 2 | 4 |`,
        '| --- | ---: | ---: | ---: |',
        '| ml.c5.xlarge | $0.3117 | $0.1558 | missed SLA 1.65× |',
        '| ml.c5.2xlarge | $0.6234 | $0.3117 | ≤ $0.1558 |',
        '',
        '',
      ].join('\n'),
    );
  });
});
