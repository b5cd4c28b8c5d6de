import { beforeAll, describe, expect, it } from '@jest/globals';
import { escapeHtml, renderHtmlReport } from '../../../core/report/render-html.js';
import type { Report } from '../../../core/report/report.js';
import {
  plannedCandidate,
  reportFrom,
  sampleReport,
  XSS_VALUE,
} from '../../../bench/fixtures/sample-report.js';

function count(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))?.length ?? 0;
}

/** The table row (`<tr …>…</tr>`) that holds the given text. */
function rowHolding(html: string, text: string): string {
  const row = html.match(/<tr[^>]*>.*?<\/tr>/g)?.find((candidate) => candidate.includes(text));
  if (row === undefined) throw new Error(`no table row holds ${JSON.stringify(text)}`);
  return row;
}

describe('renderHtmlReport', () => {
  let sampleHtml: string;

  beforeAll(async () => {
    sampleHtml = await renderHtmlReport(sampleReport());
  });

  it('is one self-contained document: no external source, link, script or font', () => {
    // Assert
    expect(sampleHtml.startsWith('<!doctype html>')).toBe(true);
    expect(sampleHtml).not.toMatch(/\s(src|href|xlink:href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(sampleHtml).not.toMatch(/<script|<link|<iframe|<img|@import|url\(/i);
    expect(sampleHtml).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
  });

  it('draws three inline SVG charts: latency, throughput and cost per 1M', () => {
    // Assert
    expect(count(sampleHtml, /<svg[\s>]/)).toBe(3);
    expect(sampleHtml).toContain('p95 and p99 latency vs load');
    expect(sampleHtml).toContain('Throughput vs load');
    expect(sampleHtml).toContain('Cost per 1M inferences at the sustainable load');
  });

  it('escapes a malicious environment value and error message everywhere, charts included', () => {
    // Assert
    expect(sampleHtml).not.toContain(XSS_VALUE);
    expect(sampleHtml).toContain(`SAGEMAKER_MODEL_SERVER_WORKERS=${escapeHtml(XSS_VALUE)}`);
    expect(sampleHtml).toContain(`worker count ${escapeHtml(XSS_VALUE)} is not a number`);
  });

  it('escapes a malicious candidate id in the tables and inside the SVG charts', async () => {
    // Prepare
    const id = `"><script>alert(1)</script>${XSS_VALUE}`;
    const report = reportFrom([
      {
        candidate: plannedCandidate(id, 'ml.c5.large', 0.102),
        steps: [{ load: 1, tps: 80, medianMs: 5, tailMs: 1 }],
      },
    ]);

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain(`<h3>${escapeHtml(id)} <span class="verdict recommended">`);
  });

  it('highlights each candidate row with its verdict', () => {
    // Assert
    expect(rowHolding(sampleHtml, '>c2-c5-xlarge-neo</a>')).toMatch(
      /^<tr class="recommended">.*verdict recommended/,
    );
    expect(rowHolding(sampleHtml, '>c3-m5-large</a>')).toMatch(/^<tr class="missed-sla">/);
    expect(rowHolding(sampleHtml, '>c5-g4dn-xlarge</a>')).toMatch(/^<tr class="failed">/);
    expect(rowHolding(sampleHtml, '>c6-inf1-xlarge</a>')).toMatch(/^<tr class="skipped">/);
  });

  it('states the recommendation and marks the figures as measured locally', () => {
    // Assert
    expect(sampleHtml).toContain('<p class="recommendation">Deploy c2-c5-xlarge-neo: ml.c5.xlarge × 1');
    expect(sampleHtml).toContain('<p class="banner">Measured locally:');
  });

  it('renders the reason when nothing is recommended', async () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('c1-m5-large', 'ml.m5.large', 0.115),
        steps: [{ load: 1, tps: 40, medianMs: 30, tailMs: 10 }],
      },
    ]);

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(html).toContain(
      '<p class="recommendation none">No recommendation: no candidate met the SLA at any load step; try larger or more instances, or try a compiled candidate (compiledFor), or relax the SLA.</p>',
    );
    expect(html).toContain('No candidate has a cost per 1M inferences');
  });

  it('still draws three charts when no candidate has a load step', async () => {
    // Prepare
    const report: Report = reportFrom(
      [
        { candidate: plannedCandidate('c1-g4dn-xlarge', 'ml.g4dn.xlarge', 0.736) },
        {
          candidate: plannedCandidate('c2-inf1-xlarge', 'ml.inf1.xlarge', 0.297),
          outcome: { candidateId: 'c2-inf1-xlarge', status: 'SKIPPED', skipReason: 'quota of 0 instances' },
        },
      ],
      { measuredLocally: false },
    );

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(count(html, /<svg[\s>]/)).toBe(3);
    expect(html).toContain('No candidate completed a load step with successful requests.');
    expect(html).toContain('No candidate completed a load step.');
    expect(html).toContain('No recommendation: no candidate could be judged against the SLA');
    expect(html).not.toContain('class="banner"');
  });

  it('adds the TTFT/ITL and the output tokens per second charts when steps streamed', async () => {
    // Prepare
    const base = reportFrom([
      {
        candidate: plannedCandidate('batch4', 'ml.c5.large', 0.102),
        steps: [
          { load: 1, tps: 10, medianMs: 8, tailMs: 2 },
          { load: 2, tps: 18, medianMs: 9, tailMs: 2 },
        ],
      },
    ]);
    const report: Report = {
      ...base,
      candidates: base.candidates.map((candidate) => ({
        ...candidate,
        steps: candidate.steps.map((step) => ({
          ...step,
          stream: {
            format: 'tgi' as const,
            ttftMs: { p50: 20, p90: 22, p95: 24, p99: 30, max: 31 },
            itlMs: { p50: 1.8, p90: 2, p95: 2.2, p99: 3, max: 4 },
            outputTokens: 320,
            outputTokensPerSecond: step.tps * 32,
            outputTokensPerRequest: 32,
            outputTokenSource: 'server' as const,
            withoutToken: 0,
          },
        })),
      })),
    };

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(count(html, /<svg[\s>]/)).toBe(5);
    expect(html).toContain('Time to first token and inter-token latency (p95) vs load');
    expect(html).toContain('Output tokens per second vs load');
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that can open markup or close an attribute', () => {
    // Act
    const escaped = escapeHtml(`<a href='x' title="y">&</a>`);

    // Assert
    expect(escaped).toBe('&#60;a href=&#39;x&#39; title=&#34;y&#34;&#62;&#38;&#60;/a&#62;');
  });
});
