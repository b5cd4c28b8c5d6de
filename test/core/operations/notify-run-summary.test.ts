import { describe, expect, it } from '@jest/globals';
import {
  buildRunSummaryNotice,
  formatDuration,
  MAX_SUBJECT_LENGTH,
  type NoticePublisher,
  notifyRunSummary,
  type RunSummaryFacts,
  type RunSummaryNotice,
  type RunWorkflow,
} from '../../../core/operations/notify-run-summary.js';
import type { ExecutionDescriber, ExecutionDescription } from '../../../core/ports/index.js';
import type { RunSummary } from '../../../core/contracts/optimization-state.js';
import { silentLogger } from '../../support/memory-object-store.js';

const REGION = 'eu-west-1';
const OPTIMIZATION_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:AsyncInference';
const RUN_ID = 'nightly-cpu-2026-11-22';
const EXECUTION_ARN = `arn:aws:states:eu-west-1:123456789012:execution:Optimization:${RUN_ID}`;
const START = Date.parse('2026-11-22T02:00:00.000Z');
const STOP = START + (72 * 60 + 5) * 1000;
const WORKFLOWS = new Map<string, RunWorkflow>([
  [OPTIMIZATION_ARN, 'optimization'],
  [ASYNC_ARN, 'async-inference'],
]);

/** The success output of the optimization workflow: the summary "Recommend" returns. */
const SUMMARY: RunSummary = {
  runId: RUN_ID,
  outcome: 'recommended',
  counts: {
    recommended: 1,
    'runner-up': 1,
    'missed-sla': 1,
    'quality-failed': 0,
    'quality-unknown': 0,
    stalled: 0,
    'model-errors': 0,
    'measurement-problem': 0,
    failed: 0,
    skipped: 0,
  },
  outcomeText: 'Recommended c5-neo; 3 candidates: 1 recommended, 1 runner-up, 1 missed the SLA.',
  recommendation: {
    candidateId: 'c5-neo',
    instanceType: 'ml.c5.xlarge',
    instanceCount: 1,
    compiled: true,
    environment: {},
    sustainableTps: 118.4,
    saturated: true,
    costPer1MUsd: 0.4788,
    latencyMs: { p50: 12.1, p90: 15.3, p95: 17.9, p99: 20.4, max: 31 },
    why: 'cheapest per 1M inferences among the 2 candidates that met p95 ≤ 100 ms',
  },
  candidates: [
    { id: 'c5', verdict: 'runner-up', reason: 'met the SLA at a higher cost' },
    { id: 'c5-neo', verdict: 'recommended', reason: 'cheapest' },
    { id: 'g4dn', verdict: 'missed-sla', reason: 'p95 above 100 ms' },
  ],
  report: {
    json: `s3://mso-artifacts/runs/${RUN_ID}/report.json`,
    markdown: `s3://mso-artifacts/runs/${RUN_ID}/report.md`,
    html: `s3://mso-artifacts/runs/${RUN_ID}/report.html`,
  },
};

function facts(
  description: Partial<ExecutionDescription>,
  overrides: Partial<RunSummaryFacts> = {},
): RunSummaryFacts {
  return {
    runId: RUN_ID,
    status: 'SUCCEEDED',
    executionArn: EXECUTION_ARN,
    workflow: 'optimization',
    region: REGION,
    description: { status: 'SUCCEEDED', startEpochMs: START, stopEpochMs: STOP, ...description },
    ...overrides,
  };
}

/** The event as Step Functions sends it to EventBridge (Step Functions developer guide example). */
function statusChange(status: string, stateMachineArn = OPTIMIZATION_ARN) {
  return {
    version: '0',
    id: '315c1398-40ff-a850-213b-158f73e60175',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: '2026-11-22T03:12:05Z',
    region: REGION,
    resources: [EXECUTION_ARN],
    detail: {
      executionArn: EXECUTION_ARN,
      stateMachineArn,
      name: RUN_ID,
      status,
      startDate: START,
      stopDate: status === 'RUNNING' ? null : STOP,
      input: '{"model":{"artifactUri":"s3://secret-bucket/model.tar.gz"}}',
      output: null,
    },
  };
}

class FakeDescriber implements ExecutionDescriber {
  readonly described: string[] = [];
  constructor(private readonly description: ExecutionDescription) {}
  describe(executionArn: string): Promise<ExecutionDescription> {
    this.described.push(executionArn);
    return Promise.resolve(this.description);
  }
}

class RecordingPublisher implements NoticePublisher {
  readonly notices: RunSummaryNotice[] = [];
  publish(notice: RunSummaryNotice): Promise<{ readonly messageId: string }> {
    this.notices.push(notice);
    return Promise.resolve({ messageId: `message-${this.notices.length}` });
  }
}

describe('notifyRunSummary', () => {
  it('describes the execution that ended and publishes its summary with status and workflow attributes', async () => {
    // Prepare
    const describer = new FakeDescriber({
      status: 'SUCCEEDED',
      startEpochMs: START,
      stopEpochMs: STOP,
      output: JSON.stringify(SUMMARY),
    });
    const publisher = new RecordingPublisher();

    // Act
    const result = await notifyRunSummary(statusChange('SUCCEEDED'), {
      describer,
      publisher,
      logger: silentLogger,
      workflows: WORKFLOWS,
      region: REGION,
    });

    // Assert
    expect(result).toEqual({
      outcome: 'published',
      runId: RUN_ID,
      status: 'SUCCEEDED',
      messageId: 'message-1',
    });
    expect(describer.described).toEqual([EXECUTION_ARN]);
    expect(publisher.notices[0]?.attributes).toEqual({
      status: 'SUCCEEDED',
      workflow: 'optimization',
      outcome: 'recommended',
    });
  });

  it('never publishes the execution input', async () => {
    // Prepare
    const publisher = new RecordingPublisher();

    // Act
    await notifyRunSummary(statusChange('FAILED'), {
      describer: new FakeDescriber({ status: 'FAILED', startEpochMs: START, stopEpochMs: STOP, error: 'X' }),
      publisher,
      logger: silentLogger,
      workflows: WORKFLOWS,
      region: REGION,
    });

    // Assert
    expect(JSON.stringify(publisher.notices)).not.toContain('secret-bucket');
  });

  it('tells the async workflow by its state machine', async () => {
    // Prepare
    const publisher = new RecordingPublisher();

    // Act
    await notifyRunSummary(statusChange('ABORTED', ASYNC_ARN), {
      describer: new FakeDescriber({ status: 'ABORTED', startEpochMs: START, stopEpochMs: STOP }),
      publisher,
      logger: silentLogger,
      workflows: WORKFLOWS,
      region: REGION,
    });

    // Assert
    expect(publisher.notices[0]?.attributes).toEqual({
      status: 'ABORTED',
      workflow: 'async-inference',
      outcome: 'aborted',
    });
    expect(publisher.notices[0]?.subject).toBe(`Async inference run ${RUN_ID} aborted`);
  });

  it('ignores an execution that has not ended, and publishes nothing', async () => {
    // Prepare
    const publisher = new RecordingPublisher();
    const describer = new FakeDescriber({ status: 'RUNNING', startEpochMs: START });

    // Act
    const result = await notifyRunSummary(statusChange('RUNNING'), {
      describer,
      publisher,
      logger: silentLogger,
      workflows: WORKFLOWS,
      region: REGION,
    });

    // Assert
    expect(result).toEqual({ outcome: 'ignored', runId: RUN_ID, status: 'RUNNING' });
    expect(describer.described).toEqual([]);
    expect(publisher.notices).toEqual([]);
  });

  it('fails when the event is not an execution status change, naming the field', async () => {
    // Act
    const act = notifyRunSummary(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: { status: 'FAILED' },
      },
      {
        describer: new FakeDescriber({ status: 'FAILED', startEpochMs: START }),
        publisher: new RecordingPublisher(),
        logger: silentLogger,
        workflows: WORKFLOWS,
        region: REGION,
      },
    );

    // Assert
    await expect(act).rejects.toThrow(/detail\.executionArn: got nothing, expected/);
  });
});

describe('buildRunSummaryNotice', () => {
  it('summarises a successful optimization run: recommendation, cost, latency, candidates, report, link', () => {
    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(SUMMARY) }));

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M`);
    expect(notice.body).toBe(
      [
        `Optimization run ${RUN_ID} succeeded after 1 h 12 min.`,
        '',
        'Recommended: c5-neo (ml.c5.xlarge x1, compiled)',
        '  Cost per 1M inferences: $0.48',
        '  Sustainable throughput: 118.4 inferences/s',
        '  Latency p50 / p90 / p99: 12.1 / 15.3 / 20.4 ms',
        '  Why: cheapest per 1M inferences among the 2 candidates that met p95 ≤ 100 ms',
        'Candidates: 3 (1 recommended, 1 runner-up, 1 missed-sla)',
        `Report: s3://mso-artifacts/runs/${RUN_ID}/report.html`,
        `        s3://mso-artifacts/runs/${RUN_ID}/report.json (machine-readable)`,
        '',
        `Execution: https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}`,
        'Started: 2026-11-22T02:00:00.000Z',
        'Stopped: 2026-11-22T03:12:05.000Z',
      ].join('\n'),
    );
  });

  it('calls an unsaturated winner’s cost per 1M an upper bound, in ASCII in the subject', () => {
    // Prepare
    const output = {
      ...SUMMARY,
      recommendation: { ...SUMMARY.recommendation, saturated: false, costPer1MIsUpperBound: true },
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, at most $0.48 per 1M`);
    expect(notice.body).toContain('  Cost per 1M inferences: ≤ $0.48\n');
  });

  it('says why nothing was recommended', () => {
    // Prepare
    const output = {
      ...SUMMARY,
      recommendation: null,
      noRecommendationReason: 'no candidate met p95 ≤ 5 ms',
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} succeeded: no recommendation`);
    expect(notice.body).toContain('No recommendation: no candidate met p95 ≤ 5 ms.');
  });

  it('says what the proof at the target came to, in the proof attribute, and in the subject when it did not hold', () => {
    // Prepare
    const proof = (status: string, note: string) =>
      buildRunSummaryNotice(
        facts({ output: JSON.stringify({ ...SUMMARY, proof: { status, candidateId: 'c5-neo', note } }) }),
      );

    // Act
    const held = proof('held', 'proven: 3 × ml.c5.xlarge held p95 41.2 ms at 300 TPS (target 300)');
    const notHeld = proof(
      'not-held',
      'not held: 3 × ml.c5.xlarge reached p95 180 ms at 300 TPS (> SLA 100 ms)',
    );

    // Assert
    expect([held.attributes.proof, notHeld.attributes.proof]).toEqual(['held', 'not-held']);
    expect([held.subject, notHeld.subject]).toEqual([
      `Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M`,
      `Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M, proof not-held`,
    ]);
    expect(held.body).toContain(
      'Candidates: 3 (1 recommended, 1 runner-up, 1 missed-sla)\nProof at the target: proven: 3 × ml.c5.xlarge held p95 41.2 ms at 300 TPS (target 300)\n',
    );
  });

  it('says what the ramp test came to, in the ramp attribute, and in the subject when it did not hold', () => {
    // Prepare
    const ramp = (status: string, note: string) =>
      buildRunSummaryNotice(facts({ output: JSON.stringify({ ...SUMMARY, ramp: { status, note } }) }));

    // Act
    const held = ramp(
      'held',
      'held: the SLA held through the ramp of 2–9 × ml.c5.xlarge from 140 to 600 TPS over 1200 s',
    );
    const notHeld = ramp('not-held', 'not held: the SLA broke for 4 min during the ramp');

    // Assert
    expect([held.attributes.ramp, notHeld.attributes.ramp]).toEqual(['held', 'not-held']);
    expect([held.subject, notHeld.subject]).toEqual([
      `Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M`,
      `Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M, ramp not-held`,
    ]);
    expect(notHeld.body).toContain(
      'Candidates: 3 (1 recommended, 1 runner-up, 1 missed-sla)\nRamp test: not held: the SLA broke for 4 min during the ramp\n',
    );
  });

  it('has no proof attribute for a run without a target', () => {
    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(SUMMARY) }));

    // Assert
    expect(Object.keys(notice.attributes)).toEqual(['status', 'workflow', 'outcome']);
  });

  it('warns that a kept endpoint bills until deleted', () => {
    // Prepare
    const output = {
      ...SUMMARY,
      keep: { endpointName: 'mso-x-ep-c5-neo', endpointConfigName: 'c', modelName: 'm' },
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.body).toContain('Kept endpoint: mso-x-ep-c5-neo (it bills until you delete it)');
  });

  it('says in the subject and the body what a succeeded run’s clean-up left, with the command to delete it', () => {
    // Prepare
    const output = {
      ...SUMMARY,
      cleanUp: {
        status: 'INCOMPLETE',
        message: 'Clean-up deleted 2 endpoints, …; LEFT 1 resource, …',
        left: [
          {
            kind: 'endpoint',
            name: 'mso-x-ep-g4dn',
            reason: 'AccessDeniedException: not authorized',
            command: 'aws sagemaker delete-endpoint --endpoint-name mso-x-ep-g4dn',
          },
        ],
      },
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.subject).toBe(
      `Optimization run ${RUN_ID} succeeded: ml.c5.xlarge, $0.48 per 1M; 1 resource(s) left`,
    );
    expect(notice.body).toContain(
      [
        'CLEAN-UP LEFT 1 RESOURCE(S): they may bill until deleted. Delete them with:',
        '  - endpoint mso-x-ep-g4dn: AccessDeniedException: not authorized',
        '    aws sagemaker delete-endpoint --endpoint-name mso-x-ep-g4dn',
      ].join('\n'),
    );
  });

  it('tells the clean-up account a failed run’s cause carries', () => {
    // Prepare
    const cause = JSON.stringify({
      errorType: 'NetworkingError',
      errorMessage: 'S3 is unreachable',
      cleanUp:
        'Clean-up deleted 2 endpoints; LEFT 1 resource, finish by hand: endpoint e (denied): aws sagemaker delete-endpoint --endpoint-name e.',
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: 'NetworkingError', cause }, { status: 'FAILED' }),
    );

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} failed: NetworkingError, resources left`);
    expect(notice.body).toContain(
      'Clean-up: Clean-up deleted 2 endpoints; LEFT 1 resource, finish by hand: endpoint e (denied): aws sagemaker delete-endpoint --endpoint-name e.',
    );
  });

  it('gives a failed run its error in the subject and the message of a Lambda error as the cause', () => {
    // Prepare
    const cause = JSON.stringify({
      errorType: 'EndpointFailedError',
      errorMessage: 'Endpoint mso-x-ep-g4dn failed: CapacityError: insufficient capacity',
      trace: ['EndpointFailedError: at deploy (file:///var/task/index.mjs:1:1)'],
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: 'EndpointFailedError', cause }, { status: 'FAILED' }),
    );

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} failed: EndpointFailedError`);
    expect(notice.body).toContain(
      [
        'Error: EndpointFailedError',
        'Cause: Endpoint mso-x-ep-g4dn failed: CapacityError: insufficient capacity',
        'The failed-run clean-up deletes the resources the run created, retrying what is left; the janitor sweeps anything it misses.',
      ].join('\n'),
    );
    expect(notice.body).not.toContain('index.mjs');
    expect(notice.attributes.status).toBe('FAILED');
  });

  it('says an aborted run was stopped', () => {
    // Act
    const notice = buildRunSummaryNotice(facts({ status: 'ABORTED' }, { status: 'ABORTED' }));

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} aborted`);
    expect(notice.body).toContain(
      'The execution was stopped (StopExecution, from the console, the API or the CLI).',
    );
  });

  it("says a timed-out run ran past the state machine's timeout", () => {
    // Act
    const notice = buildRunSummaryNotice(facts({ status: 'TIMED_OUT' }, { status: 'TIMED_OUT' }));

    // Assert
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} timed out`);
    expect(notice.body).toContain("The execution ran past the state machine's timeout and was stopped.");
  });

  it('keeps the subject under the SNS limit of 100 characters, in ASCII', () => {
    // Prepare: the longest run id and a long error name with a non-ASCII character.
    const runId = 'r'.repeat(80);

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: `Custom.Errör${'x'.repeat(200)}` }, { status: 'FAILED', runId }),
    );

    // Assert
    expect(notice.subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(notice.subject).toMatch(/^[\x20-\x7e]+\.\.\.$/);
  });

  it('summarises a successful async run: counts, endpoint, makespan, time per input, summary', () => {
    // Prepare: the async workflow's output (core/steps/async/summarize-async-run.ts).
    const output = {
      runId: 'batch-7',
      endpointName: 'mso-batch-7-ep-async',
      inputs: 12,
      completed: 10,
      failed: 1,
      timedOut: 1,
      makespanMs: 182_000,
      drainRatePerMinute: 4.1,
      totalMs: { p50: 41_000, p90: 95_000, p99: 170_000, max: 181_000 },
      timeInSageMakerMs: null,
      summaryUri: 's3://mso-artifacts/runs/batch-7/summary.json',
      summaryMarkdownUri: 's3://mso-artifacts/runs/batch-7/summary.md',
    };

    // Act
    const notice = buildRunSummaryNotice(
      facts({ output: JSON.stringify(output) }, { workflow: 'async-inference', runId: 'batch-7' }),
    );

    // Assert
    expect(notice.subject).toBe('Async inference run batch-7 succeeded: 10 of 12 completed, 2 not');
    expect(notice.body).toContain(
      [
        'Inputs: 12 (10 completed, 1 failed, 1 timed out)',
        'Endpoint: mso-batch-7-ep-async',
        'Makespan: 3 min 2 s, 4.1 results/min',
        'Time per input p50 / p90 / p99: 41 s / 1 min 35 s / 2 min 50 s',
        'Summary: s3://mso-artifacts/runs/batch-7/summary.json',
        '         s3://mso-artifacts/runs/batch-7/summary.md',
      ].join('\n'),
    );
  });

  it("adds a generative async run's tokens: the sum, the rate and the results not counted", () => {
    // Prepare
    const output = {
      runId: 'gen-1',
      endpointName: 'mso-gen-1-ep-async',
      inputs: 12,
      completed: 12,
      failed: 0,
      timedOut: 0,
      generative: {
        format: 'tgi',
        outputTokens: 2280,
        counted: 11,
        uncounted: 1,
        outputTokensPerSecond: 148.14,
      },
      summaryUri: 's3://mso-artifacts/runs/gen-1/summary.json',
    };

    // Act
    const notice = buildRunSummaryNotice(
      facts({ output: JSON.stringify(output) }, { workflow: 'async-inference', runId: 'gen-1' }),
    );

    // Assert
    expect(notice.body).toContain(
      [
        'Endpoint: mso-gen-1-ep-async',
        'Generated tokens: 2280 over 11 result(s), 148.1 tokens/s; 1 not counted',
      ].join('\n'),
    );
  });

  it('shows the plain values of an output it does not know, with counts in the subject', () => {
    // Prepare: a shape this version does not know.
    const output = {
      runId: RUN_ID,
      counts: { total: 12, succeeded: 11, failed: 1 },
      summaryUri: `s3://mso-artifacts/runs/${RUN_ID}/summary.json`,
      items: [{ inferenceId: 'i-1' }],
    };

    // Act
    const notice = buildRunSummaryNotice(
      facts({ output: JSON.stringify(output) }, { workflow: 'async-inference' }),
    );

    // Assert
    expect(notice.subject).toBe(`Async inference run ${RUN_ID} succeeded: 11 succeeded, 1 failed`);
    expect(notice.body).toContain(
      [
        `runId: ${RUN_ID}`,
        'counts.total: 12',
        'counts.succeeded: 11',
        'counts.failed: 1',
        `summaryUri: s3://mso-artifacts/runs/${RUN_ID}/summary.json`,
      ].join('\n'),
    );
    expect(notice.body).not.toContain('i-1');
  });

  it('falls back to a pointer to the execution when the output is not a JSON object', () => {
    // Act
    const notice = buildRunSummaryNotice(facts({ output: '[1,2,3]' }, { workflow: undefined }));

    // Assert
    expect(notice.subject).toBe(`Run ${RUN_ID} succeeded`);
    expect(notice.body).toContain('Output: not a JSON object; see the execution.');
    expect(notice.attributes.workflow).toBe('unknown');
  });

  it('lists at most 15 values of an unknown output and counts the rest', () => {
    // Prepare
    const output = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i}`, i]));

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.body).toContain('field14: 14\n(5 more values: see the execution)');
    expect(notice.body).not.toContain('field15');
  });
});

describe('buildRunSummaryNotice of a run without a recommendation', () => {
  it('ends FAILED with the outcome as its attribute and headline, the report, and no second clean-up promised', () => {
    // Prepare
    const report = `s3://mso-artifacts/runs/${RUN_ID}/report.html`;
    const cause = JSON.stringify({
      errorMessage: `No recommendation: every candidate failed; 2 candidates: 2 failed. Report: ${report}`,
      outcome: 'all-candidates-failed',
      counts: { failed: 2 },
      report: { html: report },
      cleanUp: 'Clean-up complete: deleted 2 endpoint(s)',
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: 'NoRecommendationError', cause }, { status: 'FAILED' }),
    );

    // Assert
    expect(notice.attributes).toEqual({
      status: 'FAILED',
      workflow: 'optimization',
      outcome: 'all-candidates-failed',
    });
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} failed: all-candidates-failed`);
    expect(notice.body).toContain(
      `Cause: No recommendation: every candidate failed; 2 candidates: 2 failed. Report: ${report}`,
    );
    expect(notice.body).not.toContain('The failed-run clean-up deletes');
  });

  it('puts a Model Registry run’s verdict against the last approved version in the comparison attribute, the subject and the body’s first line', () => {
    // Prepare
    const text =
      'Regressed versus version 3 (run approved-fraud-v3): c5-neo (recommended by approved-fraud-v3): worse: TPS 130.2 → 118.4 (-9.1 %), no spread measured.';
    const output = {
      ...SUMMARY,
      comparison: { verdict: 'regressed', text, baselineRunId: 'approved-fraud-v3' },
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.attributes).toEqual({
      status: 'SUCCEEDED',
      workflow: 'optimization',
      outcome: 'recommended',
      comparison: 'regressed',
    });
    expect(notice.subject).toBe(
      `Optimization run ${RUN_ID} succeeded: regressed, ml.c5.xlarge, $0.48 per 1M`,
    );
    expect(notice.body.split('\n').slice(0, 4)).toEqual([
      `Optimization run ${RUN_ID} succeeded after 1 h 12 min.`,
      '',
      text,
      '',
    ]);
  });

  it('says "no baseline" plainly for the first version of a group', () => {
    // Prepare
    const text =
      "No baseline: no earlier approved version of model package group fraud has a report, so version 1 is the group's first baseline.";
    const output = { ...SUMMARY, comparison: { verdict: 'no-baseline', text } };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.attributes.comparison).toBe('no-baseline');
    expect(notice.body).toContain(`\n${text}\n`);
  });

  it('has no comparison attribute for a run that names no model package', () => {
    // Prepare
    const output = { ...SUMMARY, comparison: null };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.attributes).toEqual({
      status: 'SUCCEEDED',
      workflow: 'optimization',
      outcome: 'recommended',
    });
  });

  it('reads the comparison of a Model Registry run that ended without a recommendation from its cause', () => {
    // Prepare
    const text =
      'Regressed versus version 3 (run approved-fraud-v3): approved-fraud-v4 recommends nothing (no-candidate-met-sla); approved-fraud-v3 recommended c5-neo.';
    const cause = JSON.stringify({
      errorMessage:
        'No recommendation: no candidate met the SLA. Report: s3://mso-artifacts/runs/x/report.html',
      outcome: 'no-candidate-met-sla',
      counts: { 'missed-sla': 2 },
      report: { html: 's3://mso-artifacts/runs/x/report.html' },
      cleanUp: 'Clean-up complete: deleted 2 endpoint(s)',
      comparison: { verdict: 'regressed', text, baselineRunId: 'approved-fraud-v3' },
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: 'NoRecommendationError', cause }, { status: 'FAILED' }),
    );

    // Assert
    expect(notice.attributes).toEqual({
      status: 'FAILED',
      workflow: 'optimization',
      outcome: 'no-candidate-met-sla',
      comparison: 'regressed',
    });
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} failed: regressed, no-candidate-met-sla`);
    expect(notice.body.split('\n')[2]).toBe(text);
  });

  it('names a partial run’s outcome in its attribute, subject and body', () => {
    // Prepare
    const output = {
      ...SUMMARY,
      outcome: 'partial',
      outcomeText:
        'Partial: recommended c5-neo, but not every candidate could be judged against the SLA; 3 candidates: 1 recommended, 1 runner-up, 1 failed.',
    };

    // Act
    const notice = buildRunSummaryNotice(facts({ output: JSON.stringify(output) }));

    // Assert
    expect(notice.attributes.outcome).toBe('partial');
    expect(notice.subject).toBe(`Optimization run ${RUN_ID} succeeded: partial, ml.c5.xlarge, $0.48 per 1M`);
    expect(notice.body).toContain(output.outcomeText);
  });
});

describe('formatDuration', () => {
  it.each([
    [42_000, '42 s'],
    [5 * 60_000, '5 min'],
    [5 * 60_000 + 3000, '5 min 3 s'],
    [(72 * 60 + 5) * 1000, '1 h 12 min'],
  ])('formats %d ms as %s', (ms, text) => {
    // Act
    const formatted = formatDuration(ms);

    // Assert
    expect(formatted).toBe(text);
  });
});

describe('buildRunSummaryNotice: where the work of a run that did not succeed is', () => {
  it('a failed async run names the results it completed: the message and each location, after the cause', () => {
    // Prepare
    const batch = `s3://mso-artifacts/runs/${RUN_ID}/async/results/batch-0000.json`;
    const cause = JSON.stringify({
      errorType: 'EndpointFailedError',
      errorMessage: 'Endpoint mso-x-ep-async was deleted outside the run',
      completed: {
        message: 'Before the failure, 1 of 2 batches recorded their results: 40 inputs of 45, 40 completed.',
        locations: [batch],
      },
      cleanUp: 'Clean-up deleted 1 endpoint; nothing left.',
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts(
        { status: 'FAILED', error: 'EndpointFailedError', cause },
        { status: 'FAILED', workflow: 'async-inference' },
      ),
    );

    // Assert
    expect(notice.body).toContain(
      [
        'Cause: Endpoint mso-x-ep-async was deleted outside the run',
        'Completed: Before the failure, 1 of 2 batches recorded their results: 40 inputs of 45, 40 completed.',
        `  - ${batch}`,
        'Clean-up: Clean-up deleted 1 endpoint; nothing left.',
      ].join('\n'),
    );
  });

  it('lists at most 20 locations and counts the rest', () => {
    // Prepare
    const locations = Array.from(
      { length: 23 },
      (_, index) => `s3://b/runs/r/load-tests/c${index}/result.json`,
    );
    const cause = JSON.stringify({
      errorMessage: 'S3 is unreachable',
      completed: { message: 'Measured.', locations },
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts({ status: 'FAILED', error: 'NetworkingError', cause }, { status: 'FAILED' }),
    );

    // Assert
    expect(notice.body).toContain(`  - ${locations[19] ?? ''}\n  (3 more in the execution's cause)`);
    expect(notice.body).not.toContain(locations[20] ?? '');
  });

  it('fails when no input completed: the outcome as attribute and headline, the reasons summarised, no second clean-up promised', () => {
    // Prepare
    const summaryMd = `s3://mso-artifacts/runs/${RUN_ID}/async/summary.md`;
    const cause = JSON.stringify({
      errorMessage: `None of the 3 inputs completed: 2 failed, 1 timed out. Why, and each input: ${summaryMd}`,
      outcome: 'all-inputs-failed',
      counts: { inputs: 3, failed: 2, timedOut: 1 },
      failureReasons: [
        {
          reason:
            "Failed: ClientError: Received client error (400) from model with message '{'error':'bad'}'",
          inputs: 2,
        },
        { reason: 'TimedOut: no notification within the wait', inputs: 1 },
      ],
      summary: {
        summaryUri: `s3://mso-artifacts/runs/${RUN_ID}/async/summary.json`,
        summaryMarkdownUri: summaryMd,
      },
      cleanUp: 'Clean-up deleted 1 endpoint; nothing left.',
    });

    // Act
    const notice = buildRunSummaryNotice(
      facts(
        { status: 'FAILED', error: 'NoInputCompletedError', cause },
        { status: 'FAILED', workflow: 'async-inference' },
      ),
    );

    // Assert
    expect(notice.attributes).toEqual({
      status: 'FAILED',
      workflow: 'async-inference',
      outcome: 'all-inputs-failed',
    });
    expect(notice.subject).toContain('failed: all-inputs-failed');
    expect(notice.body).toContain(
      [
        `Cause: None of the 3 inputs completed: 2 failed, 1 timed out. Why, and each input: ${summaryMd}`,
        'Why the inputs failed:',
        "  - 2 inputs: Failed: ClientError: Received client error (400) from model with message '{'error':'bad'}'",
        '  - 1 input: TimedOut: no notification within the wait',
      ].join('\n'),
    );
    expect(notice.body).not.toContain('The failed-run clean-up deletes');
  });
});
