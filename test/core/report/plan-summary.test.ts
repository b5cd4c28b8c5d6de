import { describe, expect, it } from '@jest/globals';
import { formatPlan } from '../../../core/report/plan-summary.js';
import { plannedCandidate, runPlan, SAMPLE_LOAD_PLAN } from '../../../bench/fixtures/sample-report.js';

describe('formatPlan', () => {
  it('lists the extension steps and counts them in the load test time', () => {
    // Prepare: 1, 2, 4, 8, 16 then 32, 64, 128 (8 × 16): 8 steps of 35 s.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      loadPlan: { ...SAMPLE_LOAD_PLAN, extendUntilSaturated: true },
    });

    // Act
    const text = formatPlan({ plan, runCommand: 'npm start -- --input in.json' });

    // Assert
    expect(text.split('\n')).toContain(
      'Load plan: closed model, steps 1, 2, 4, 8, 16 (then 32, 64, 128 while every step meets the SLA), 5 s warm-up + 30 s per step, 1 worker(s), up to 3 knee probe(s), sustainable load measured 2 times: at most 420 s per candidate; 1 candidate: about 420 s of load tests',
    );
  });

  it("prints the planner's warnings under the load plan", () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      warnings: ['loadPlan.workers: set loadPlan.workers to at least 3.'],
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    const loadPlanLine = lines.findIndex((line) => line.startsWith('Load plan: '));
    expect(lines[loadPlanLine + 1]).toBe('  warning: loadPlan.workers: set loadPlan.workers to at least 3.');
  });

  it('says the proof runs after "Recommend" with a target, and with how many workers', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      prove: { enabled: true, workers: 4 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines).toContain(
      'Proof at 1000 TPS: after "Recommend", the chosen candidate deployed with its computed count, one open-model step of 5 s warm-up + 30 s by 4 worker(s), then deleted',
    );
  });

  it('says the proof is off when the input turns it off', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      prove: { enabled: false, workers: 1 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines).toContain('Proof at 1000 TPS: off (prove.enabled false)');
  });

  it('shows a p99-only SLA as p99, not as "p95 ≤ undefined ms"', () => {
    // Prepare: examples/bert-int64-gpu.json bounds p99 alone.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      sla: { p99LatencyMs: 50, maxErrorRate: 0.001 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('SLA: '))).toEqual([
      'SLA: p99 ≤ 50 ms, error rate ≤ 0.001; objective lowest-cost-per-1m',
    ]);
  });

  it('says "no knee probes" for a plan without any, not "up to 0 knee probe(s)"', () => {
    // Prepare: examples/local-routing.json asks for none.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      loadPlan: { ...SAMPLE_LOAD_PLAN, kneeProbes: 0, repeats: 1 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('Load plan: '))).toEqual([
      'Load plan: closed model, steps 1, 2, 4, 8, 16, 5 s warm-up + 30 s per step, 1 worker(s), no knee probes, sustainable load measured 1 time: at most 175 s per candidate; 1 candidate: about 175 s of load tests',
    ]);
  });

  it('says "1 candidate" for one, not "1 candidate(s), 2 at a time"', () => {
    // Prepare: examples/existing-endpoint.json plans one candidate, 2 at a time by default.
    const plan = runPlan([plannedCandidate('existing', 'ml.c5.xlarge', 0.204)]);

    // Act
    const text = formatPlan({ plan, runCommand: 'npm start -- --input in.json' });

    // Assert
    expect(text).toMatch(/; 1 candidate: about \d+ s of load tests$/m);
  });

  it('counts no more candidates at a time than there are', () => {
    // Prepare
    const plan = runPlan(
      [plannedCandidate('a', 'ml.c5.xlarge', 0.204), plannedCandidate('b', 'ml.c5.large', 0.102)],
      { maxConcurrentCandidates: 4 },
    );

    // Act
    const text = formatPlan({ plan, runCommand: 'npm start -- --input in.json' });

    // Assert
    expect(text).toMatch(/; 2 candidate\(s\), 2 at a time: about \d+ s of load tests$/m);
  });

  it("says a local run costs nothing in the local CLI's plan only", () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)]);

    // Act
    const costLine = (local: boolean): string | undefined =>
      formatPlan({ plan, runCommand: 'start', local })
        .split('\n')
        .find((line) => line.startsWith('Estimated cost on AWS: '));

    // Assert
    expect([costLine(true), costLine(false)]).toEqual([
      'Estimated cost on AWS: $0.40 (no maxCostUsd set); a local run costs nothing',
      'Estimated cost on AWS: $0.40 (no maxCostUsd set)',
    ]);
  });

  it("prints the run's typical and worst duration on AWS after the cost's assumptions", () => {
    // Prepare: 3 candidates, 2 at a time, one compilation job.
    const plan = runPlan(
      [
        plannedCandidate('a', 'ml.c5.xlarge', 0.204),
        plannedCandidate('b', 'ml.c5.large', 0.102),
        plannedCandidate('c', 'ml.m5.large', 0.115),
      ],
      {
        compilations: [
          { target: 'ml_c5', jobName: 'mso-run-ab12cd34-cj-ml-c5', outputUri: 's3://mso-artifacts/c/' },
        ],
        estimate: {
          ...runPlan([]).estimate,
          assumptions: ['endpoint billed 10 min while creating and 2 min while deleting'],
          durationSeconds: { typical: 3150, worst: 9900 },
        },
      },
    );

    // Act
    const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

    // Assert
    const assumption = lines.indexOf(
      '  assumes: endpoint billed 10 min while creating and 2 min while deleting',
    );
    expect(lines[assumption + 1]).toBe(
      'Estimated duration on AWS: about 53 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 2.8 h if every endpoint and job takes its whole deadline',
    );
  });

  it("says a user's endpoint is not deployed in the duration of its plan", () => {
    // Prepare
    const plan = runPlan([plannedCandidate('existing', 'ml.c5.xlarge', 0.204, { kind: 'existing' })], {
      existingEndpoint: { endpointName: 'prod-endpoint' },
      estimate: { ...runPlan([]).estimate, durationSeconds: { typical: 490, worst: 3905 } },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('Estimated duration on AWS: '))).toEqual([
      'Estimated duration on AWS: about 8 min as assumed above (nothing deployed); at most 65 min if every endpoint and job takes its whole deadline',
    ]);
  });

  it('prints no duration for a plan made before it was recorded', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)]);

    // Act
    const text = formatPlan({ plan, runCommand: 'start' });

    // Assert
    expect(text).not.toContain('Estimated duration');
  });

  it('shows both latency bounds when the SLA sets p95 and p99', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      sla: { p95LatencyMs: 20, p99LatencyMs: 40, maxErrorRate: 0.01 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('SLA: '))).toEqual([
      'SLA: p95 ≤ 20 ms, p99 ≤ 40 ms, error rate ≤ 0.01; objective lowest-cost-per-1m',
    ]);
  });

  describe('the prices’ age', () => {
    const staleTable = {
      source: 'price-table' as const,
      region: 'us-east-1',
      asOf: '2025-10-01',
      ageDays: 423,
    };
    const withPrices = (candidate: ReturnType<typeof plannedCandidate>) => {
      const plan = runPlan([candidate]);
      return runPlan([candidate], { estimate: { ...plan.estimate, prices: staleTable } });
    };

    it('warns when a candidate is priced from a table older than 180 days', () => {
      // Prepare
      const plan = withPrices(plannedCandidate('cpu', 'ml.c5.xlarge', 0.204));

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines).toContain(
        '  warning: prices of 2025-10-01 (ml.c5.xlarge), 423 days old (more than 180): they may have changed; give current ones in pricing.usdPerHour',
      );
    });

    it("dates each recorded price by its own row, and names the row's source", () => {
      // Prepare
      const plan = withPrices(
        plannedCandidate('p5', 'ml.p5.48xlarge', 113.068, {
          priceRegion: 'us-east-1',
          priceAsOf: '2025-01-26',
        }),
      );

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines.find((line) => line.includes('p5 '))).toContain(
        '$113.0680/h, price table, us-east-1, 2025-01-26',
      );
      expect(lines).toContain(
        '  prices: the recorded table (Real-Time Inference, on-demand, per instance-hour) for ml.p5.48xlarge; rows from ' +
          'https://github.com/aws-samples/foundation-model-benchmarking-tool/blob/39ce6b9c3572bf620a60c288c5b473462c5bc2eb/fmbench/configs/pricing.yml',
      );
      expect(lines).toContain(
        '  warning: prices of 2025-01-26 (ml.p5.48xlarge), 671 days old (more than 180): they may have changed; give current ones in pricing.usdPerHour',
      );
    });

    it("marks a candidate priced from another region's recorded row, in its own price cell", () => {
      // Prepare: a plan made for eu-west-1, whose table rows are us-east-1 figures.
      const candidate = plannedCandidate('cpu', 'ml.c5.xlarge', 0.204, {
        priceRegion: 'us-east-1',
        priceAsOf: '2025-10-01',
      });
      const plan = runPlan([candidate], {
        estimate: { ...runPlan([candidate]).estimate, prices: { ...staleTable, runRegion: 'eu-west-1' } },
      });

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines.find((line) => line.includes('cpu '))).toContain(
        '$0.2040/h, price table, us-east-1 figure (no eu-west-1 row), 2025-10-01',
      );
    });

    it("shows a recorded row of the run's own region without a mark", () => {
      // Prepare
      const candidate = plannedCandidate('cpu', 'ml.c5.xlarge', 0.204, {
        priceRegion: 'us-east-1',
        priceAsOf: '2025-10-01',
      });
      const plan = runPlan([candidate], {
        estimate: { ...runPlan([candidate]).estimate, prices: { ...staleTable, runRegion: 'us-east-1' } },
      });

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines.find((line) => line.includes('cpu '))).toContain(
        '$0.2040/h, price table, us-east-1, 2025-10-01',
      );
    });

    it('names the run input, not the recorded table, when every price comes from the input', () => {
      // Prepare
      const plan = withPrices(plannedCandidate('cpu', 'ml.c5.xlarge', 0.25, { priceSource: 'run-input' }));

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines.filter((line) => line.startsWith('  prices:'))).toEqual([
        '  prices: the run input (pricing.usdPerHour) for the candidates it prices',
      ]);
      expect(lines.find((line) => line.includes('cpu '))).toContain('$0.2500/h, run input');
    });

    it("names the live read's region and day for a candidate priced from the Price List", () => {
      // Prepare
      const candidate = plannedCandidate('cpu', 'ml.c5.xlarge', 0.23, {
        priceSource: 'price-list',
        priceRegion: 'eu-west-1',
        priceAsOf: '2026-11-28',
      });
      const base = runPlan([candidate]);
      const live = { source: 'price-list-api' as const, region: 'eu-west-1', asOf: '2026-11-28', ageDays: 0 };
      const plan = runPlan([candidate], { estimate: { ...base.estimate, prices: live } });

      // Act
      const lines = formatPlan({ plan, runCommand: 'start' }).split('\n');

      // Assert
      expect(lines.find((line) => line.includes('cpu '))).toContain(
        '$0.2300/h, price list, eu-west-1, 2026-11-28',
      );
      expect(lines.filter((line) => line.startsWith('  prices:'))).toEqual([
        '  prices: read from the AWS Price List API, eu-west-1, as of 2026-11-28 (0 day(s) old)',
      ]);
      expect(lines.join('\n')).not.toContain('days old (more than 180)');
    });

    it('says nothing of the table’s age when every candidate’s price comes from the run input', () => {
      // Prepare
      const plan = withPrices(plannedCandidate('cpu', 'ml.c5.xlarge', 0.25, { priceSource: 'run-input' }));

      // Act
      const text = formatPlan({ plan, runCommand: 'start' });

      // Assert
      expect(text).not.toContain('days old (more than 180)');
    });
  });
});
