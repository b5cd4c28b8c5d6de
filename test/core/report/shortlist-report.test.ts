import { describe, expect, it } from '@jest/globals';
import type { Shortlist } from '../../../core/contracts/shortlist.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import { sampleReport } from '../../../bench/fixtures/sample-report.js';

const SHORTLIST: Shortlist = {
  request: { max: 2, kinds: ['cpu'] },
  rule: 'cheapest per hour',
  chosen: [
    { instanceType: 'ml.c6g.large', kind: 'cpu', usdPerHour: 0.082 },
    { instanceType: 'ml.c5.large', kind: 'cpu', usdPerHour: 0.102 },
  ],
  leftOut: [{ reason: 'burstable', families: ['t2'] }],
};

const CHOICE =
  "These instance types were the tool's choice: the run input asked for a shortlist (kinds cpu, at most 2), " +
  'and the planner took the cheapest per hour.';

describe('report of a shortlisted run', () => {
  it("records that the instance types were the tool's choice, and by which rule", () => {
    // Act
    const report = sampleReport({ plan: { shortlist: SHORTLIST } });

    // Assert
    expect(report.shortlist).toEqual({ request: SHORTLIST.request, rule: SHORTLIST.rule });
  });

  it('says so in report.md and report.html', async () => {
    // Prepare
    const report = sampleReport({ plan: { shortlist: SHORTLIST } });

    // Act
    const markdown = renderMarkdownReport(report);
    const html = await renderHtmlReport(report);

    // Assert
    expect([
      markdown.split('\n').includes(CHOICE),
      html.includes(`<p>${CHOICE.replace("'", '&#39;')}</p>`),
    ]).toEqual([true, true]);
  });

  it('says nothing of a shortlist when the user named the candidates', () => {
    // Act
    const report = sampleReport();

    // Assert
    expect(['shortlist' in report, renderMarkdownReport(report).includes("tool's choice")]).toEqual([
      false,
      false,
    ]);
  });
});
