import { describe, expect, it } from '@jest/globals';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import type { Report, ReportMachineLoad } from '../../../core/report/report.js';
import { plannedCandidate, reportFrom } from '../../../bench/fixtures/sample-report.js';

const MISSED = reportFrom([
  {
    candidate: plannedCandidate('c5-large', 'ml.c5.large', 0.102),
    steps: [{ load: 1, tps: 40, medianMs: 30, tailMs: 10 }],
  },
]);

/** Injected figures: a run whose machine other processes shared. */
const BUSY: ReportMachineLoad = {
  cores: 2,
  before: { loadPerCore: 1.6, procsRunning: 4 },
  during: { samples: 12, meanLoadPerCore: 2.1, maxLoadPerCore: 2.6, maxProcsRunning: 6 },
  stealPercent: 0.4,
  busyBecause: ['3 other task(s) running on 2 cores as the run started'],
};
const QUIET: ReportMachineLoad = {
  cores: 2,
  before: { loadPerCore: 0.1, procsRunning: 1 },
  during: { samples: 3, meanLoadPerCore: 0.9, maxLoadPerCore: 1, maxProcsRunning: 2 },
  busyBecause: [],
};
const FIGURES =
  '2 cores; as the run started: load 1.60 per core, 4 tasks running; during it (12 samples): load 2.10 per core on average, ' +
  'up to 2.60, up to 6 tasks running; CPU steal 0.4 %';

function withLoad(machineLoad: ReportMachineLoad): Report {
  return { ...MISSED, machineLoad };
}

describe('the machine load in report.md', () => {
  it("says the machine was busy next to the verdict, and that a miss may be the machine's", () => {
    // Act
    const markdown = renderMarkdownReport(withLoad(BUSY));

    // Assert
    expect(markdown).toMatch(
      /\(outcome `no-candidate-met-sla`\)\n\n> The machine was busy \(3 other task\\?\(s\\?\) running on 2 cores as the run started\): a miss may be the machine's, not the candidate's\./,
    );
    expect(markdown).toContain(`- Machine: ${FIGURES}`);
  });

  it('gives the figures but no note when the machine was quiet', () => {
    // Act
    const markdown = renderMarkdownReport(withLoad(QUIET));

    // Assert
    expect(markdown).not.toContain('was busy');
    expect(markdown).toContain(
      '- Machine: 2 cores; as the run started: load 0.10 per core, 1 task running; during it (3 samples): load 0.90 per core on average, up to 1.00, up to 2 tasks running',
    );
  });

  it('says nothing of a machine in a report without the figures (AWS runs)', () => {
    expect(renderMarkdownReport(MISSED)).not.toMatch(/Machine:|was busy/);
  });
});

describe('the machine load in report.html', () => {
  it('puts the busy note right after the outcome and the figures under SLA and objective', async () => {
    // Act
    const html = await renderHtmlReport(withLoad(BUSY));

    // Assert
    expect(html).toMatch(
      /<p class="outcome no-candidate-met-sla">.*<\/p>\n<p class="banner busy">The machine was busy \(3 other task\(s\) running on 2 cores as the run started\): a miss may be the machine&#39;s/,
    );
    expect(html).toContain(`<li><strong>Machine:</strong> ${FIGURES}</li>`);
  });

  it('has no busy note when the machine was quiet', async () => {
    expect(await renderHtmlReport(withLoad(QUIET))).not.toContain('banner busy');
  });
});
