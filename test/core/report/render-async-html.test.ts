import { describe, expect, it } from '@jest/globals';
import { ASYNC_CHART_TITLES } from '../../../core/report/async-report-charts.js';
import {
  ASYNC_MEASURED_LOCALLY_NOTICE,
  moneyText,
  renderAsyncHtmlReport,
} from '../../../core/report/render-async-html.js';
import { escapeHtml } from '../../../core/report/render-html.js';
import { asyncReport, asyncSummary } from '../../../bench/fixtures/async-reports.js';

describe('renderAsyncHtmlReport', () => {
  it('answers first: the outcome, then the cost, then the charts over time', async () => {
    // Act
    const html = await renderAsyncHtmlReport(asyncReport());

    // Assert
    const outcome = html.indexOf('<strong>Partial: 27 of 30 inputs completed</strong>');
    const cost = html.indexOf('<h2>Cost</h2>');
    const charts = html.indexOf('<h2>Over time</h2>');
    const figures = html.indexOf('<h2>Figures</h2>');
    expect(outcome).toBeGreaterThan(0);
    expect(cost).toBeGreaterThan(outcome);
    expect(charts).toBeGreaterThan(cost);
    expect(figures).toBeGreaterThan(charts);
    expect(html).toContain('30 input(s): 27 completed, 2 failed, 1 timed out');
    expect(html).toContain('class="outcome partial"');
  });

  it('draws the four charts as inline SVG, each with its title', async () => {
    // Act
    const html = await renderAsyncHtmlReport(asyncReport());

    // Assert
    expect(html.match(/<figure><svg/g)).toHaveLength(4);
    for (const title of Object.values(ASYNC_CHART_TITLES)) expect(html).toContain(escapeHtml(title));
  });

  it('allows no script and loads nothing', async () => {
    // Act
    const html = await renderAsyncHtmlReport(asyncReport());

    // Assert
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it('escapes the run name, user text', async () => {
    // Act
    const html = await renderAsyncHtmlReport(
      asyncReport({ summary: asyncSummary({ name: '<script>alert(1)</script>' }) }),
    );

    // Assert
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('says a local run was measured locally', async () => {
    // Act
    const html = await renderAsyncHtmlReport(asyncReport({ measuredLocally: true }));

    // Assert
    expect(html).toContain(`<p class="banner">${escapeHtml(ASYNC_MEASURED_LOCALLY_NOTICE)}</p>`);
  });

  it('says why a chart is empty when the instances and the backlog were not recorded', async () => {
    // Act
    const html = await renderAsyncHtmlReport(
      asyncReport({ instancesAtStart: null, activities: [], backlog: [] }),
    );

    // Assert
    expect(html).toContain('The instance count was not recorded during this run.');
    expect(html).toContain('the endpoint’s own backlog was not recorded');
    expect(html).toContain('<li>the instance count was not recorded');
  });
});

describe('moneyText', () => {
  it('gives the instance-hours, their cost at the listed price and the plan’s bound', () => {
    expect(moneyText(asyncReport().money)).toBe(
      '0.2417 instance-hours (870 instance-seconds): $0.05 at $0.204 per instance-hour; the plan’s upper bound was $0.52',
    );
  });

  it('keeps two significant digits of a cost under a cent', () => {
    expect(
      moneyText({
        instanceHours: 0.0001,
        usdPerInstanceHour: 0.102,
        costUsd: 0.0000102,
        basis: '',
        estimatedUsd: 0.14,
      }),
    ).toBe(
      '0.0001 instance-hours (0.4 instance-seconds): $0.000010 at $0.102 per instance-hour; the plan’s upper bound was $0.14',
    );
  });
});
