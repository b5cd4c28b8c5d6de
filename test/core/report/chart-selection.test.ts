import { describe, expect, it } from '@jest/globals';
import type { TopLevelSpec } from 'vega-lite';
import { chartedCandidates, chartedNote } from '../../../core/report/chart-selection.js';
import { isEmptyChart, latencyChartSpec, throughputChartSpec } from '../../../core/report/charts-specs.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { sampleReport } from '../../../bench/fixtures/sample-report.js';
import { twentyCandidateReport } from '../../../bench/fixtures/sweep-reports.js';

/** The candidates a line chart draws: its colour scale's domain, and the ids in its data. */
function series(chart: ReturnType<typeof latencyChartSpec>): { domain: unknown; plotted: string[] } {
  if (isEmptyChart(chart)) throw new Error(`expected a chart with data, got "${chart.message}"`);
  const layers = (
    chart as TopLevelSpec & {
      layer: {
        data: { values: { candidate: string }[] };
        encoding?: { color?: { scale?: { domain?: unknown } } };
      }[];
    }
  ).layer;
  return {
    domain: layers[0]?.encoding?.color?.scale?.domain,
    plotted: [...new Set(layers[0]?.data.values.map((value) => value.candidate))],
  };
}

/** The six best of the twenty by cost per 1M, the recommendation first (see sweep-reports.ts). */
const TOP_SIX = [
  'c6i-xlarge-w4',
  'c5-large-w2',
  'c5-xlarge-w4',
  'm5-xlarge-w4',
  'c5-2xlarge-w8',
  'c6i-xlarge-w2',
];

describe('chartedCandidates', () => {
  it('draws every measured candidate, in report order, up to eight', () => {
    // Prepare
    const report = sampleReport();

    // Act
    const { shown, notShown } = chartedCandidates(report);

    // Assert
    expect(shown.map((candidate) => candidate.id)).toEqual([
      'c1-c5-xlarge',
      'c2-c5-xlarge-neo',
      'c3-m5-large',
      'c4-c5-large',
    ]);
    expect(notShown).toEqual([]);
  });

  it('draws the six best under the objective past eight, and keeps the others, best first, for the table', () => {
    // Prepare
    const report = twentyCandidateReport();

    // Act
    const { shown, notShown } = chartedCandidates(report);

    // Assert
    expect(shown.map((candidate) => candidate.id)).toEqual(TOP_SIX);
    expect(notShown.map((candidate) => candidate.id)).toEqual([
      'c5-large-w1',
      'c5-xlarge-w2',
      'c5-2xlarge-w4',
      'm5-xlarge-w2',
      'c6i-xlarge-w1',
      'c5-xlarge-w1',
      'c5-2xlarge-w2',
      'm5-xlarge-w1',
      'c5-2xlarge-w1',
      'c5-xlarge-w8',
      'm5-xlarge-w8',
      'c6i-xlarge-w8',
      'c5-large-w4',
      'c5-large-w8',
    ]);
  });

  it('says which candidates the charts show when it leaves some out', () => {
    // Prepare
    const report = twentyCandidateReport();

    // Act
    const note = chartedNote(report, chartedCandidates(report));

    // Assert
    expect(note).toBe(
      'showing the 6 best of 20 measured candidates under lowest-cost-per-1m (the recommendation first); the other 14 are in the table below the charts',
    );
  });
});

describe('line charts at 20 candidates', () => {
  it('draw six candidates in the latency chart, with a six-colour legend', () => {
    // Act
    const { domain, plotted } = series(latencyChartSpec(twentyCandidateReport()));

    // Assert
    expect(domain).toEqual(TOP_SIX);
    expect(plotted.sort()).toEqual([...TOP_SIX].sort());
  });

  it('draw six candidates in the throughput chart and say so in its subtitle', () => {
    // Prepare
    const chart = throughputChartSpec(twentyCandidateReport());

    // Act
    const { domain } = series(chart);

    // Assert
    expect(domain).toEqual(TOP_SIX);
    expect((chart as { title: { subtitle: unknown } }).title.subtitle).toEqual([
      'filled circle: step met the SLA, cross: it did not; grey rule: target 1000 TPS (measured locally)',
      'showing the 6 best of 20 measured candidates under lowest-cost-per-1m (the recommendation first); the other 14 are in the table below the charts',
    ]);
  });

  it('leave the other fourteen to a table under the charts in report.html', async () => {
    // Act
    const html = await renderHtmlReport(twentyCandidateReport());

    // Assert
    const table = html.slice(
      html.indexOf('<table class="not-charted">'),
      html.indexOf('</table>', html.indexOf('<table class="not-charted">')),
    );
    expect(table.match(/<tr class=/g)?.length).toBe(14);
    expect(table).toContain(
      '<tr class="runner-up"><td><a href="#candidate-1">c5-large-w1</a></td><td>runner-up</td><td>$0.2409</td><td class="number">117.6</td><td class="number">11.2</td></tr>',
    );
    expect(table).toContain(
      '<tr class="missed-sla"><td><a href="#candidate-8">c5-xlarge-w8</a></td><td>missed SLA</td><td>not ranked</td><td class="number">—</td><td class="number">—</td></tr>',
    );
  });
});
