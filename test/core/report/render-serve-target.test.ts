import { describe, expect, it } from '@jest/globals';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import { serveTargetSummaryLine } from '../../../core/report/render-serve-target.js';
import type { Report } from '../../../core/report/report.js';
import type { PlannedCandidate } from '../../../core/contracts/optimization-state.js';
import type { ServeTargetProof } from '../../../core/serving/prove-target.js';
import { heldRamp, notHeldRamp, serveTargetReport, withRamp } from '../../../bench/fixtures/ramp-reports.js';
import { plannedCandidate, reportFrom, SAMPLE_SLA } from '../../../bench/fixtures/sample-report.js';

function targetReport(targetTps: number | undefined, extra: Partial<PlannedCandidate> = {}) {
  return reportFrom(
    [
      {
        candidate: plannedCandidate('large', 'ml.c5.large', 0.102, extra),
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
  it('follows the outcome and the recommendation in report.md, with the count and the cost at the target in bold', () => {
    // Act
    const markdown = renderMarkdownReport(targetReport(600));

    // Assert
    const lines = markdown.split('\n');
    expect(lines.indexOf('## Serve 600 TPS')).toBeGreaterThan(lines.indexOf('## Recommendation'));
    expect(lines.indexOf('## Serve 600 TPS')).toBeLessThan(lines.indexOf('## Candidates'));
    expect(lines).toContain(
      '**9 × ml.c5.large: $0.9180/h, $0.4250 per 1M inferences at 600 TPS (candidate large)**',
    );
  });

  it('says how the instances share the requests when the candidate names a routingStrategy', () => {
    // Act
    const report = targetReport(600, { routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' });
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(report.serveTarget?.routingStrategy).toBe('LEAST_OUTSTANDING_REQUESTS');
    expect(markdown.split('\n')).toContain(
      '- Routing: LEAST_OUTSTANDING_REQUESTS (the candidate’s routingStrategy): each request goes to an ' +
        'instance with more capacity to process it; the deploy requests and the proof carry it as the ' +
        'variant’s RoutingConfig.',
    );
  });

  it('says nothing of routing when the candidate names no strategy (SageMaker’s RANDOM)', () => {
    // Act
    const report = targetReport(600);

    // Assert
    expect(report.serveTarget?.routingStrategy).toBeUndefined();
    expect(renderMarkdownReport(report)).not.toContain('Routing:');
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

  it('follows the recommendation in report.html, its autoscaling policy folded at the end', async () => {
    // Act
    const html = await renderHtmlReport(targetReport(600));

    // Assert
    const serve = html.indexOf('<h2>Serve 600 TPS</h2>');
    const policy = html.indexOf('<h2>Autoscaling policy (Serve 600 TPS)</h2>');
    expect(serve).toBeGreaterThan(html.indexOf('<h2>Recommendation</h2>'));
    expect(serve).toBeLessThan(html.indexOf('<h2>Candidates</h2>'));
    expect(policy).toBeGreaterThan(html.indexOf('<h2>Prices and cost</h2>'));
    expect(html.slice(policy)).toMatch(
      /^<h2>Autoscaling policy \(Serve 600 TPS\)<\/h2>\n<p>Target tracking[^\n]*<\/p>\n<details class="policy"><summary>Requests and CDK code<\/summary>\n<p>RegisterScalableTarget:<\/p>/,
    );
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

  it('says in the terminal line what the proof came to when it held', () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'held',
      measured: { tps: 601.2, p95Ms: 14.5, p99Ms: 19.1, errorRate: 0, workers: 1 },
      note: 'proven: 9 × ml.c5.large held p95 14.5 ms at 601.2 TPS (target 600)',
    });

    // Act
    const line = serveTargetSummaryLine(report);

    // Assert
    expect(line).toBe(
      'Serve 600 TPS: 9 × ml.c5.large: $0.9180/h, $0.4250 per 1M inferences at 600 TPS (candidate large) ' +
        '(proven: 9 × ml.c5.large held p95 14.5 ms at 601.2 TPS)',
    );
  });

  it('says in the terminal line that the target was not held, with the measured figures', () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'not-held',
      measured: { tps: 540, p95Ms: 48.2, p99Ms: 80, errorRate: 0.02, workers: 1 },
      note: 'not held: …',
    });

    // Act
    const line = serveTargetSummaryLine(report);

    // Assert
    expect(line).toBe(
      'Serve 600 TPS: The proof did not hold: 9 × ml.c5.large did not carry 600 TPS within the SLA: ' +
        'it served 540 TPS, p95 48.2 ms, error rate 0.02 (see the report)',
    );
  });

  it('opens report.md with the proof that did not hold, never with the count it disproved', () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'not-held',
      measured: { tps: 540, p95Ms: 48.2, p99Ms: 80, errorRate: 0.02, workers: 1 },
      note: 'not held: 9 × ml.c5.large at 600 TPS: p95 48.2 ms > SLA 20 ms',
    });

    // Act
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    const headline =
      '**The proof did not hold: 9 × ml.c5.large did not carry 600 TPS within the SLA: it served 540 TPS, p95 48.2 ms, error rate 0.02.**';
    expect(lines[lines.indexOf('## Outcome') + 2]).toBe(headline);
    expect(lines.some((line) => line.startsWith('**9 × ml.c5.large'))).toBe(false);
  });

  it('gives report.html a red headline and no green recommendation box when the proof did not hold', async () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'not-held',
      measured: { tps: 540, p95Ms: 48.2, p99Ms: 80, errorRate: 0.02, workers: 1 },
      note: 'not held: 9 × ml.c5.large at 600 TPS: p95 48.2 ms > SLA 20 ms',
    });

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(html).toContain(
      '<h2>Outcome</h2>\n<p class="outcome proof-not-held"><strong>The proof did not hold: 9 × ml.c5.large did not carry 600 TPS within the SLA: it served 540 TPS, p95 48.2 ms, error rate 0.02.</strong></p>',
    );
    expect(html).toContain('<p class="recommendation unproven">');
    expect(html).not.toContain('<p class="recommendation">');
    expect(html).not.toContain('<strong>9 × ml.c5.large');
  });

  it('lists the proof’s figures and its spread over the instances in report.md', () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'held',
      measured: { tps: 601.2, p95Ms: 14.5, p99Ms: 19.1, errorRate: 0, workers: 1 },
      perInstance: [
        { instance: 'instance-1', invocations: 3010 },
        { instance: 'instance-2', invocations: 2990 },
      ],
      perInstanceNote: 'counted by the local routing front',
      note: 'proven: 9 × ml.c5.large held p95 14.5 ms at 601.2 TPS (target 600)',
    });

    // Act
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    expect(lines).toEqual(
      expect.arrayContaining([
        '- Proven: 9 × ml.c5.large held p95 14.5 ms at 601.2 TPS (target 600).',
        '- Proof at 600 TPS on 9 instance(s), 1 worker(s): 601.2 TPS, p95 14.5 ms, p99 19.1 ms, error rate 0.',
        '- Per instance: instance-1 3010, instance-2 2990 invocations (counted by the local routing front).',
      ]),
    );
  });

  it('gives the busiest ÷ least busy instance with the proof’s spread when it is known', () => {
    // Prepare
    const report = withProof(targetReport(600), {
      status: 'held',
      measured: { tps: 601.2, p95Ms: 14.5, p99Ms: 19.1, errorRate: 0, workers: 1 },
      perInstance: [
        { instance: 'instance-1', invocations: 3300 },
        { instance: 'instance-2', invocations: 2700 },
      ],
      perInstanceImbalance: 1.22,
      perInstanceNote: 'counted by the local routing front',
      note: 'proven: 9 × ml.c5.large held p95 14.5 ms at 601.2 TPS (target 600)',
    });

    // Act
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    expect(lines).toContain(
      '- Per instance: instance-1 3300, instance-2 2700 invocations (max/min 1.22; counted by the local routing front).',
    );
  });
});

describe('a corrected proof in the "Serve X TPS" section', () => {
  it('says in the terminal line that the count was corrected, and in report.md what the first proof found', () => {
    // Prepare
    const base = withProof(targetReport(600), {
      status: 'held',
      measured: { tps: 600.4, p95Ms: 12.2, p99Ms: 18, errorRate: 0, workers: 1 },
      note: 'proven: 9 × ml.c5.large held p95 12.2 ms at 600.4 TPS (target 600); deploy 9, not the 8 sized from the measurement',
    });
    const st = base.serveTarget;
    if (st?.proof === undefined) throw new Error('no proof');
    const report: Report = {
      ...base,
      serveTarget: {
        ...st,
        proof: {
          ...st.proof,
          previous: {
            status: 'not-held',
            instances: 8,
            targetTps: 600,
            note: 'not held: 8 × ml.c5.large at 600 TPS: p95 31 ms > SLA 20 ms',
          },
        },
      },
    };

    // Act
    const line = serveTargetSummaryLine(report);
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    expect(line).toBe(
      'Serve 600 TPS: 9 × ml.c5.large: $0.9180/h, $0.4250 per 1M inferences at 600 TPS (candidate large) ' +
        '(proven: 9 × ml.c5.large held p95 12.2 ms at 600.4 TPS; corrected from 8, which did not hold)',
    );
    expect(lines).toContain(
      '- Before the correction, on 8 instance(s): not held: 8 × ml.c5.large at 600 TPS: p95 31 ms > SLA 20 ms.',
    );
  });
});

/** The report after "Record proof": the section's proof and its note. */
function withProof(
  report: Report,
  proof: Pick<
    ServeTargetProof,
    'status' | 'measured' | 'perInstance' | 'perInstanceImbalance' | 'perInstanceNote' | 'note'
  >,
): Report {
  const st = report.serveTarget;
  if (st === undefined) throw new Error('no serveTarget');
  return {
    ...report,
    serveTarget: {
      ...st,
      proven: proof.status === 'held',
      provenNote: proof.note,
      proof: { ...proof, candidateId: 'large', instances: 9, instanceType: 'ml.c5.large', targetTps: 600 },
    },
  };
}

describe('the ramp test in the "Serve X TPS" section', () => {
  /** report.md's lines from "### Ramp test" up to the next heading. */
  function rampPart(report: Report): string[] {
    const lines = renderMarkdownReport(report).split('\n');
    const start = lines.indexOf('### Ramp test');
    if (start === -1) throw new Error('no "### Ramp test" in report.md');
    const end = lines.findIndex((line, index) => index > start && line.startsWith('#'));
    return lines.slice(start, end);
  }

  it('comes after the proof in report.md, the autoscaling policy at the end', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), heldRamp());

    // Act
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    const proof = lines.findIndex((line) => line.startsWith('- Not proven:'));
    expect(proof).toBeGreaterThan(-1);
    expect(lines.indexOf('### Ramp test')).toBeGreaterThan(proof);
    expect(lines.indexOf('### Ramp test')).toBeLessThan(
      lines.indexOf('## Autoscaling policy (Serve 600 TPS)'),
    );
  });

  it('says the ramp held, with the ramp, its scale-outs, cost and where the instances came from', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), heldRamp());

    // Act
    const part = rampPart(report);

    // Assert
    expect(part).toEqual([
      '### Ramp test',
      '',
      'Held: the SLA held from 140 to 600 TPS over 600 s.',
      '',
      '- Ramp: 140 → 600 TPS over 600 s on 2–9 × ml.c5.large (candidate large); the policy’s target 4200 invocations per instance per minute.',
      '- SLA: held in all 10 buckets.',
      '- Scale-out: 2 → 4 instances in service at 200 s, 200 s after the rate per instance passed the policy’s target (at 0 s).',
      '- Scale-out: 4 → 7 instances in service at 400 s, 160 s after the rate per instance passed the policy’s target (at 240 s).',
      '- Scale-out: 7 → 9 instances in service at 540 s, 60 s after the rate per instance passed the policy’s target (at 480 s).',
      '- Cost: $0.0890 for 3140 instance-seconds (in service and starting).',
      '- Instances: counted by the local routing front.',
      '',
    ]);
  });

  it('gives the minutes the SLA broke and the headroom that would have held when the ramp did not hold', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), notHeldRamp());

    // Act
    const part = rampPart(report);

    // Assert
    expect(part.slice(2, 6)).toEqual([
      'Not held: the SLA broke for 4 min of the 10 min ramp.',
      '',
      '- Ramp: 140 → 600 TPS over 600 s on 2–9 × ml.c5.large (candidate large); the policy’s target 4200 invocations per instance per minute.',
      '- SLA: broken for 4 min (240 s): 60–240 s (p95 45.000 ms > SLA 20 ms, p99 80.000 ms > SLA 40 ms); 360–420 s (error rate 5.00% > SLA 1.00%).',
    ]);
    expect(part).toContain(
      '- Headroom 0.2 would have held: 1 − 0.767 TPS/s × 200 s ÷ (2 × 100 TPS) = 0.233.',
    );
  });

  it('gives a failed ramp’s note alone', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), {
      status: 'failed',
      candidateId: 'large',
      note: 'the ramp endpoint did not start: EndpointFailedError',
    });

    // Act
    const part = rampPart(report);

    // Assert
    expect(part).toEqual([
      '### Ramp test',
      '',
      'Failed: the ramp endpoint did not start: EndpointFailedError.',
      '',
    ]);
  });

  it('gives a skipped ramp’s reason in one line', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), {
      status: 'skipped',
      note: 'off (rampTest.enabled is not true)',
    });

    // Act
    const part = rampPart(report);

    // Assert
    expect(part).toEqual(['### Ramp test', '', 'Skipped: off (rampTest.enabled is not true).', '']);
  });

  it('is absent from report.md before the ramp phase has run', () => {
    // Act & Assert
    expect(renderMarkdownReport(serveTargetReport())).not.toContain('### Ramp test');
  });

  it('draws the ramp’s chart in report.html under the ramp’s figures', async () => {
    // Prepare
    const report = withRamp(serveTargetReport(), notHeldRamp());

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    const part = html.slice(html.indexOf('<h3>Ramp test</h3>'), html.indexOf('<h2>Candidates</h2>'));
    expect(part).toContain('<p>Not held: the SLA broke for 4 min of the 10 min ramp.</p>');
    expect(part).toContain(
      '<li>Headroom 0.2 would have held: 1 − 0.767 TPS/s × 200 s ÷ (2 × 100 TPS) = 0.233.</li>',
    );
    expect(part).toContain('<figure><svg');
    expect(part).toContain('Ramp test: load, latency and instances over time');
  });

  it('draws no ramp chart in report.html when the ramp was skipped', async () => {
    // Prepare
    const report = withRamp(serveTargetReport(), { status: 'skipped', note: 'no sla.targetTps' });

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    expect(html).toContain('<h3>Ramp test</h3>\n<p>Skipped: no sla.targetTps.</p>');
    expect(html).not.toContain('Ramp test: load, latency and instances over time');
  });
});
