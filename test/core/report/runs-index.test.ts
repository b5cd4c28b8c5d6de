import { describe, expect, it } from '@jest/globals';
import type { AsyncRunSummary } from '../../../core/contracts/async-state.js';
import type { Report } from '../../../core/report/report.js';
import {
  indexEntryOfAsyncSummary,
  indexEntryOfDocument,
  indexEntryOfReport,
  renderRunsIndexHtml,
  runsIndexDocument,
  type RunsIndexEntry,
} from '../../../core/report/runs-index.js';
import { sampleReport, XSS_VALUE } from '../../../bench/fixtures/sample-report.js';

const LINKS = { html: 'nightly/report.html', markdown: 'nightly/report.md', json: 'nightly/report.json' };

const ASYNC_SUMMARY: AsyncRunSummary = {
  runId: 'batch-1',
  name: 'Nightly batch',
  outcome: 'partial',
  endpointName: 'mso-batch-1',
  inputs: 10,
  completed: 8,
  failed: 1,
  timedOut: 1,
  makespanMs: 60_000,
  drainRatePerMinute: 8,
  totalMs: null,
  timeInSageMakerMs: null,
  summaryUri: 's3://b/runs/batch-1/async/summary.json',
  summaryMarkdownUri: 's3://b/runs/batch-1/async/summary.md',
};

function row(overrides: Partial<RunsIndexEntry>): RunsIndexEntry {
  return {
    runId: 'run',
    workflow: 'optimization',
    outcome: 'recommended',
    outcomeText: 'Recommended',
    links: {},
    ...overrides,
  };
}

describe('indexEntryOfReport', () => {
  it('gives the outcome, the winner’s variant, its cost under the objective and the SLA', () => {
    // Prepare
    const report = sampleReport();

    // Act
    const entry = indexEntryOfReport(report, LINKS);

    // Assert
    expect(entry).toEqual({
      runId: 'nightly-2026-11-22',
      workflow: 'optimization',
      name: 'resnet-ish CNN',
      date: '2026-11-22T10:30:00.000Z',
      outcome: 'partial',
      outcomeText: report.outcomeText,
      winner: {
        candidateId: 'c2-c5-xlarge-neo',
        variant: 'ml.c5.xlarge × 1, compiled for ml_c5, environment OMP_NUM_THREADS=4',
      },
      cost: expect.stringMatching(/^(≤ )?\$0\.0885 \(USD per 1M inferences\)$/) as unknown as string,
      sla: expect.stringMatching(/^p95 ≤ \d+ ms/) as unknown as string,
      measuredLocally: true,
      links: LINKS,
    });
  });

  it('calls a run whose proof at the target did not hold "proof not held", whatever its outcome', () => {
    // Prepare
    const base = sampleReport();
    const report = {
      ...base,
      serveTarget: { proof: { status: 'not-held', targetTps: 600, note: 'not held' } },
    } as unknown as Report;

    // Act
    const entry = indexEntryOfReport(report, LINKS);

    // Assert
    expect([base.outcome, entry.outcome]).toEqual(['partial', 'proof-not-held']);
  });

  it('calls a run whose target no candidate that met the SLA can carry "no candidate carries the target"', () => {
    // Prepare: the serve target sized nothing (every candidate capped), as exit code 7 says.
    const report = {
      ...sampleReport(),
      serveTarget: { targetTps: 1e9, proof: { status: 'skipped', note: 'nothing to prove' } },
    } as unknown as Report;

    // Act
    const entry = indexEntryOfReport(report, LINKS);

    // Assert
    expect(entry.outcome).toBe('target-not-carried');
  });

  it('keeps the outcome of a run whose serve target sized a candidate', () => {
    // Prepare
    const base = sampleReport();
    const report = {
      ...base,
      serveTarget: {
        targetTps: 60,
        candidateId: 'c2-c5-xlarge-neo',
        proof: { status: 'skipped', note: 'off' },
      },
    } as unknown as Report;

    // Act
    const entry = indexEntryOfReport(report, LINKS);

    // Assert
    expect(entry.outcome).toBe(base.outcome);
  });

  it('gives no winner nor cost, and the reason, when nothing was recommended', () => {
    // Prepare
    const report: Report = {
      ...sampleReport(),
      outcome: 'no-candidate-met-sla',
      recommendation: null,
      noRecommendationReason: 'no candidate met p95 ≤ 20 ms',
    };

    // Act
    const entry = indexEntryOfReport(report, LINKS);

    // Assert
    expect([entry.outcome, entry.winner, entry.cost, entry.note]).toEqual([
      'no-candidate-met-sla',
      undefined,
      undefined,
      'no candidate met p95 ≤ 20 ms',
    ]);
  });
});

describe('indexEntryOfDocument', () => {
  it('reads an async summary as an async row with its counts', () => {
    // Act
    const entry = indexEntryOfDocument(ASYNC_SUMMARY, {
      runId: 'batch-1',
      date: '2026-11-22T11:00:00.000Z',
      links: {},
      source: 'batch-1/async/summary.json',
    });

    // Assert
    expect(entry).toEqual(
      indexEntryOfAsyncSummary(ASYNC_SUMMARY, { date: '2026-11-22T11:00:00.000Z', links: {} }),
    );
    expect([entry.workflow, entry.outcome, entry.outcomeText]).toEqual([
      'async-inference',
      'async-partial',
      '10 input(s) on endpoint mso-batch-1: 8 completed, 1 failed, 1 timed out',
    ]);
  });

  it('fails when the document is neither a report nor an async summary, with an unreadable row naming the file', () => {
    // Act
    const entry = indexEntryOfDocument(
      { hello: 'world' },
      { runId: 'odd', links: {}, source: 'odd/report.json' },
    );

    // Assert
    expect([entry.outcome, entry.note]).toEqual([
      'unreadable',
      'odd/report.json is neither an optimization report (candidates, outcome) nor an async summary (endpointName, inputs)',
    ]);
  });
});

describe('runsIndexDocument', () => {
  it('lists the runs newest first, runs without a date last', () => {
    // Prepare
    const entries = [
      row({ runId: 'old', date: '2026-11-01T00:00:00.000Z' }),
      row({ runId: 'undated' }),
      row({ runId: 'new', date: '2026-11-20T00:00:00.000Z' }),
    ];

    // Act
    const document = runsIndexDocument(entries, { generatedAt: '2026-11-22T00:00:00.000Z', source: 'runs' });

    // Assert
    expect(document.runs.map(({ runId }) => runId)).toEqual(['new', 'old', 'undated']);
  });
});

describe('renderRunsIndexHtml', () => {
  it('escapes every name and figure, and keeps the reports’ policy: no script, no fetch', () => {
    // Prepare
    const document = runsIndexDocument(
      [
        row({
          runId: 'x',
          name: XSS_VALUE,
          outcomeText: XSS_VALUE,
          winner: { candidateId: XSS_VALUE, variant: XSS_VALUE },
          cost: XSS_VALUE,
          sla: XSS_VALUE,
          note: XSS_VALUE,
          links: { html: 'x/report "onmouseover=alert(1).html' },
        }),
      ],
      { generatedAt: '2026-11-22T00:00:00.000Z', source: XSS_VALUE },
    );

    // Act
    const html = renderRunsIndexHtml(document);

    // Assert
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"onmouseover');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
    expect(html).toContain('<a href="x/report%20%22onmouseover%3Dalert(1).html">report</a>');
  });

  it('links each run’s report files relative to the index and colours the outcome', () => {
    // Prepare
    const document = runsIndexDocument([row({ runId: 'nightly', outcome: 'proof-not-held', links: LINKS })], {
      generatedAt: '2026-11-22T00:00:00.000Z',
      source: 'runs',
    });

    // Act
    const html = renderRunsIndexHtml(document);

    // Assert
    expect(html).toContain(
      '<a href="nightly/report.html">report</a> · <a href="nightly/report.md">markdown</a> · <a href="nightly/report.json">json</a>',
    );
    expect(html).toContain('<td class="bad"><strong>proof not held at the target</strong>');
  });
});
