import { describe, expect, it } from '@jest/globals';
import { renderHtmlReport } from '../../../handlers/report/render-html.js';
import { renderMarkdownReport } from '../../../handlers/report/render-markdown.js';
import { serveTargetSummaryLine } from '../../../handlers/report/render-serve-target.js';
import { plannedCandidate, reportFrom, SAMPLE_SLA } from './support/sample-report.js';

function targetReport(targetTps: number | undefined) {
  return reportFrom(
    [
      {
        candidate: plannedCandidate('large', 'ml.c5.large', 0.102),
        steps: [
          { load: 1, tps: 60, medianMs: 10, tailMs: 2 },
          { load: 2, tps: 100, medianMs: 12, tailMs: 2 },
          { load: 4, tps: 105, medianMs: 30, tailMs: 20 },
        ],
      },
    ],
    { plan: { sla: { ...SAMPLE_SLA, targetTps } }, measuredLocally: false },
  );
}

describe('the "Serve X TPS" section', () => {
  it('comes first in report.md, with the count and the cost at the target in bold', () => {
    // Act
    const markdown = renderMarkdownReport(targetReport(600));

    // Assert
    const lines = markdown.split('\n');
    expect(lines.indexOf('## Serve 600 TPS')).toBeLessThan(lines.indexOf('## Outcome'));
    expect(lines).toContain(
      '**9 × ml.c5.large: $0.9180/h, $0.4250 per 1M inferences at 600 TPS (candidate large)**',
    );
  });

  it('gives the PutScalingPolicy request as a JSON block in report.md', () => {
    // Act
    const markdown = renderMarkdownReport(targetReport(600));

    // Assert
    const start =
      markdown.indexOf('PutScalingPolicy:\n\n```json\n') + 'PutScalingPolicy:\n\n```json\n'.length;
    const json = markdown.slice(start, markdown.indexOf('\n```', start));
    expect(JSON.parse(json)).toEqual({
      PolicyName: 'mso-run-ab12cd34-ep-large-invocations-per-instance',
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/mso-run-ab12cd34-ep-large/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: 4200,
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        ScaleInCooldown: 300,
        ScaleOutCooldown: 60,
      },
    });
  });

  it('comes before the outcome in report.html', async () => {
    // Act
    const html = await renderHtmlReport(targetReport(600));

    // Assert
    expect(html.indexOf('<h2>Serve 600 TPS</h2>')).toBeLessThan(html.indexOf('<h2>Outcome</h2>'));
    expect(html).toContain('<h3>Autoscaling policy</h3>');
  });

  it('is absent from report.md when the SLA names no target', () => {
    // Act
    const markdown = renderMarkdownReport(targetReport(undefined));

    // Assert
    expect(markdown).not.toContain('## Serve');
  });

  it('is one line in the terminal summary', () => {
    // Act
    const line = serveTargetSummaryLine(targetReport(600));

    // Assert
    expect(line).toBe(
      'Serve 600 TPS: 9 × ml.c5.large: $0.9180/h, $0.4250 per 1M inferences at 600 TPS (candidate large) ' +
        '(not proven: measured, not tested at the target)',
    );
  });
});
