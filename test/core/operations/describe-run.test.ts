import { describe, expect, it } from '@jest/globals';
import { ResourceNotFoundError, TransientServiceError } from '../../../core/contracts/errors.js';
import { describeRun, parseDescribeRunEvent } from '../../../core/operations/describe-run.js';
import { proxyEvent, requestOf, invalidRequestRefusal } from '../run-status/support/proxy-events.js';
import type { ExecutionDescription } from '../../../core/run-status/ports.js';
import { runStatusSchema } from '../../../core/contracts/run-api-contract.js';
import { silentLogger } from '../../support/memory-object-store.js';
import {
  benchmarkCandidate,
  FakeExecutionReader,
  HistoryBuilder,
  optimizationUntilBenchmark,
} from '../run-status/support/history.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-cpu';
const BENCHMARK = 'Benchmark each candidate';
const START = new Date('2026-03-01T08:00:00.000Z');
const STOP = new Date('2026-03-01T09:12:30.000Z');
const optimizationRun = { workflow: 'optimization', runId: 'nightly-cpu' } as const;
const asyncRun = { workflow: 'async-inference', runId: 'batch-7' } as const;
const BATCHES = 'Process each batch';
const INPUTS = 'Invoke each input';

/** The async-inference workflow up to its batches Map, every batch started. */
function asyncUntilBatches(batches: number): HistoryBuilder {
  const builder = new HistoryBuilder()
    .task('Validate async run')
    .entered('ParallelStateEntered', 'Run async inference')
    .entered('ChoiceStateEntered', 'Endpoint ready?')
    .task('Deploy async endpoint')
    .entered('WaitStateEntered', 'Wait for async endpoint')
    .task('Check async endpoint')
    .entered('ChoiceStateEntered', 'Endpoint prepared?')
    .mapStarted(BATCHES, batches);
  for (let batch = 0; batch < batches; batch += 1) builder.iteration(BATCHES, 'Started');
  return builder;
}

/** One batch: load its inputs, invoke each (waiting for its notification), record the results. */
function asyncBatch(
  builder: HistoryBuilder,
  inputs: number,
  options: { finished?: number } = {},
): HistoryBuilder {
  const finished = options.finished ?? inputs;
  builder.task('Load batch inputs').mapStarted(INPUTS, inputs);
  for (let input = 0; input < inputs; input += 1) builder.iteration(INPUTS, 'Started');
  for (let input = 0; input < finished; input += 1)
    builder.task('Invoke async inference').iteration(INPUTS, 'Succeeded');
  if (finished < inputs) return builder;
  return builder.mapEnded().task('Record batch results');
}

function execution(overrides: Partial<ExecutionDescription> = {}): ExecutionDescription {
  return { executionArn: EXECUTION_ARN, status: 'RUNNING', startDate: START, ...overrides };
}

/** Three candidates, two at a time: the first measured, the second deploying, the third started. */
function benchmarkingHistory(): HistoryBuilder {
  const builder = optimizationUntilBenchmark(3);
  builder.iteration(BENCHMARK, 'Started').iteration(BENCHMARK, 'Started');
  benchmarkCandidate(builder, 2).iteration(BENCHMARK, 'Succeeded');
  builder
    .iteration(BENCHMARK, 'Started')
    .task('Deploy candidate')
    .entered('WaitStateEntered', 'Wait for endpoint')
    .task('Deploy candidate');
  return builder;
}

describe('describeRun', () => {
  it('reports a running optimization run’s phase and its candidates benchmarked out of those planned', async () => {
    // Prepare
    const executions = new FakeExecutionReader({
      description: execution(),
      history: benchmarkingHistory().newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(reply.statusCode).toBe(200);
    expect(runStatusSchema.parse(reply.body)).toEqual({
      runId: 'nightly-cpu',
      workflow: 'optimization',
      status: 'RUNNING',
      executionArn: EXECUTION_ARN,
      startDate: '2026-03-01T08:00:00.000Z',
      progress: {
        phase: BENCHMARK,
        items: { label: 'candidates', total: 3, started: 3, succeeded: 1, failed: 0, running: 2 },
        historyEventsRead: executions.eventsRead,
      },
    });
    expect(executions.described).toEqual([optimizationRun]);
  });

  it('stops reading the history at the benchmark Map’s entry, older events cannot change the progress', async () => {
    // Prepare
    const builder = benchmarkingHistory();
    const executions = new FakeExecutionReader({ description: execution(), history: builder.newestFirst() });

    // Act
    await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(executions.eventsRead).toBe(builder.length - builder.entryIdOf(BENCHMARK) + 1);
    expect(executions.eventsRead).toBeLessThan(builder.length);
  });

  it('names the phase after the benchmark once every candidate is done', async () => {
    // Prepare
    const builder = optimizationUntilBenchmark(2);
    for (let candidate = 0; candidate < 2; candidate += 1) {
      benchmarkCandidate(builder.iteration(BENCHMARK, 'Started'), 1).iteration(BENCHMARK, 'Succeeded');
    }
    builder.mapEnded().task('Recommend').failingTask('Clean up run resources');
    const executions = new FakeExecutionReader({ description: execution(), history: builder.newestFirst() });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body).progress).toMatchObject({
      phase: 'Clean up run resources',
      items: { label: 'candidates', total: 2, started: 2, succeeded: 2, failed: 0, running: 0 },
    });
  });

  it('gives a succeeded run’s stop date and the report files the Recommend step wrote', async () => {
    // Prepare
    const prefix = 's3://mso-artifacts/runs/nightly-cpu/';
    const summary = {
      runId: 'nightly-cpu',
      outcome: 'partial',
      recommendation: { candidateId: 'c5-neo' },
      candidates: [],
      report: { json: `${prefix}report.json`, markdown: `${prefix}report.md`, html: `${prefix}report.html` },
    };
    const builder = optimizationUntilBenchmark(1);
    benchmarkCandidate(builder.iteration(BENCHMARK, 'Started'), 1).iteration(BENCHMARK, 'Succeeded');
    builder
      .mapEnded()
      .task('Recommend')
      .task('Clean up run resources')
      .entered('SucceedStateEntered', 'Run succeeded');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'SUCCEEDED', stopDate: STOP, output: JSON.stringify(summary) }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      status: 'SUCCEEDED',
      stopDate: '2026-03-01T09:12:30.000Z',
      report: summary.report,
      outcome: 'partial',
      progress: { phase: 'Run succeeded', items: { total: 1, succeeded: 1 } },
    });
  });

  it('gives the proof’s verdict of a succeeded run that proved its target, for the exit code', async () => {
    // Prepare
    const prefix = 's3://mso-artifacts/runs/nightly-cpu/';
    const summary = {
      runId: 'nightly-cpu',
      outcome: 'recommended',
      recommendation: { candidateId: 'c5' },
      candidates: [],
      report: { json: `${prefix}report.json`, markdown: `${prefix}report.md`, html: `${prefix}report.html` },
      proof: { status: 'not-held', candidateId: 'c5', instances: 3, note: 'not held: …' },
    };
    const builder = optimizationUntilBenchmark(1);
    benchmarkCandidate(builder.iteration(BENCHMARK, 'Started'), 1).iteration(BENCHMARK, 'Succeeded');
    builder
      .mapEnded()
      .task('Recommend')
      .task('Clean up run resources')
      .entered('SucceedStateEntered', 'Run succeeded');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'SUCCEEDED', stopDate: STOP, output: JSON.stringify(summary) }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      status: 'SUCCEEDED',
      outcome: 'recommended',
      proof: 'not-held',
    });
  });

  it('gives the report and the outcome of a run that ended in "No recommendation", read from its cause', async () => {
    // Prepare
    const prefix = 's3://mso-artifacts/runs/nightly-cpu/';
    const report = {
      json: `${prefix}report.json`,
      markdown: `${prefix}report.md`,
      html: `${prefix}report.html`,
    };
    const cause = JSON.stringify({
      errorMessage: `No recommendation: no candidate met the SLA; 2 candidates: 2 missed the SLA. Report: ${report.html}`,
      outcome: 'no-candidate-met-sla',
      counts: { 'missed-sla': 2 },
      report,
      cleanUp: 'Clean-up complete',
    });
    const builder = optimizationUntilBenchmark(1);
    benchmarkCandidate(builder.iteration(BENCHMARK, 'Started'), 1).iteration(BENCHMARK, 'Succeeded');
    builder
      .mapEnded()
      .task('Recommend')
      .task('Clean up run resources')
      .entered('FailStateEntered', 'No recommendation');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'FAILED', stopDate: STOP, error: 'NoRecommendationError', cause }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      status: 'FAILED',
      error: 'NoRecommendationError',
      report,
      outcome: 'no-candidate-met-sla',
    });
  });

  it('gives a Model Registry run’s verdict against the last approved version, read from its output', async () => {
    // Prepare
    const prefix = 's3://mso-artifacts/runs/approved-fraud-v4/';
    const summary = {
      runId: 'approved-fraud-v4',
      outcome: 'recommended',
      candidates: [],
      report: { json: `${prefix}report.json`, markdown: `${prefix}report.md`, html: `${prefix}report.html` },
      comparison: { verdict: 'regressed', text: 'Regressed versus version 3 (run approved-fraud-v3): …' },
    };
    const builder = optimizationUntilBenchmark(1);
    benchmarkCandidate(builder.iteration(BENCHMARK, 'Started'), 1).iteration(BENCHMARK, 'Succeeded');
    builder
      .mapEnded()
      .task('Recommend')
      .task('Clean up run resources')
      .entered('SucceedStateEntered', 'Run succeeded');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'SUCCEEDED', stopDate: STOP, output: JSON.stringify(summary) }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      status: 'SUCCEEDED',
      outcome: 'recommended',
      comparison: 'regressed',
    });
  });

  it('gives the comparison a "No recommendation" cause carries, and none when it is null', async () => {
    // Prepare
    const report = { json: 'r.json', markdown: 'r.md', html: 'r.html' };
    const causeWith = (comparison: unknown) =>
      JSON.stringify({
        errorMessage: 'No recommendation',
        outcome: 'no-candidate-met-sla',
        report,
        comparison,
      });
    const statusOf = async (cause: string) => {
      const builder = optimizationUntilBenchmark(1);
      builder.iteration(BENCHMARK, 'Started').iteration(BENCHMARK, 'Succeeded');
      builder.mapEnded().task('Recommend').entered('FailStateEntered', 'No recommendation');
      const executions = new FakeExecutionReader({
        description: execution({ status: 'FAILED', stopDate: STOP, error: 'NoRecommendationError', cause }),
        history: builder.newestFirst(),
      });
      return runStatusSchema.parse(
        (await describeRun(optimizationRun, { executions, logger: silentLogger })).body,
      );
    };

    // Act
    const regressed = await statusOf(causeWith({ verdict: 'regressed', text: 'Regressed versus version 3' }));
    const other = await statusOf(causeWith(null));

    // Assert
    expect([regressed.comparison, regressed.outcome]).toEqual(['regressed', 'no-candidate-met-sla']);
    expect([other.comparison, other.outcome]).toEqual([undefined, 'no-candidate-met-sla']);
  });

  it('gives a failed run’s error and cause, and the clean-up it went through', async () => {
    // Prepare
    const cause = 'ResourceLimitExceeded: account-level service limit for ml.g5.xlarge endpoint usage is 0';
    const builder = optimizationUntilBenchmark(1)
      .iteration(BENCHMARK, 'Started')
      .failingTask('Deploy candidate');
    builder
      .iteration(BENCHMARK, 'Failed')
      .task('Clean up after failure')
      .entered('FailStateEntered', 'Run failed');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'FAILED', stopDate: STOP, error: 'QuotaExceededError', cause }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    const status = runStatusSchema.parse(reply.body);
    expect(status).toMatchObject({ status: 'FAILED', error: 'QuotaExceededError', cause });
    expect(status.report).toBeUndefined();
    expect(status.progress).toMatchObject({
      phase: 'Run failed',
      items: { total: 1, started: 1, succeeded: 0, failed: 1, running: 0 },
    });
  });

  it('reports a run refused at validation without items: the benchmark never started', async () => {
    // Prepare
    const builder = new HistoryBuilder()
      .failingTask('Validate and plan')
      .entered('FailStateEntered', 'Run refused');
    const executions = new FakeExecutionReader({
      description: execution({
        status: 'FAILED',
        stopDate: STOP,
        error: 'InvalidRunInputError',
        cause: 'sla: …',
      }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body).progress).toEqual({
      phase: 'Run refused',
      historyEventsRead: builder.length,
    });
  });

  it('counts an async run’s batches, and its inputs across batches, the total unknown until every batch loaded', async () => {
    // Prepare
    const builder = asyncUntilBatches(2);
    asyncBatch(builder, 3).iteration(BATCHES, 'Succeeded');
    builder.task('Load batch inputs');
    const executions = new FakeExecutionReader({ description: execution(), history: builder.newestFirst() });

    // Act
    const reply = await describeRun(asyncRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      workflow: 'async-inference',
      progress: {
        phase: BATCHES,
        groups: { label: 'batches', total: 2, started: 2, succeeded: 1, failed: 0, running: 1 },
        items: { label: 'inputs', started: 3, succeeded: 3, failed: 0, running: 0 },
        historyEventsRead: builder.length - builder.entryIdOf(BATCHES) + 1,
      },
    });
    expect(runStatusSchema.parse(reply.body).progress.items?.total).toBeUndefined();
  });

  it('gives an async run’s input total once every batch has loaded its inputs', async () => {
    // Prepare
    const builder = asyncUntilBatches(2);
    asyncBatch(builder, 3).iteration(BATCHES, 'Succeeded');
    asyncBatch(builder, 2, { finished: 1 });
    const executions = new FakeExecutionReader({ description: execution(), history: builder.newestFirst() });

    // Act
    const reply = await describeRun(asyncRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body).progress.items).toEqual({
      label: 'inputs',
      total: 5,
      started: 5,
      succeeded: 4,
      failed: 0,
      running: 1,
    });
  });

  it('gives a succeeded async run’s summary files', async () => {
    // Prepare
    const prefix = 's3://mso-artifacts/runs/batch-7/async/';
    const summary = {
      runId: 'batch-7',
      inputs: 3,
      summaryUri: `${prefix}summary.json`,
      summaryMarkdownUri: `${prefix}summary.md`,
    };
    const builder = asyncUntilBatches(1);
    asyncBatch(builder, 3).iteration(BATCHES, 'Succeeded');
    builder
      .mapEnded()
      .task('Summarize async run')
      .task('Clean up async run')
      .entered('SucceedStateEntered', 'Run succeeded');
    const executions = new FakeExecutionReader({
      description: execution({ status: 'SUCCEEDED', stopDate: STOP, output: JSON.stringify(summary) }),
      history: builder.newestFirst(),
    });

    // Act
    const reply = await describeRun(asyncRun, { executions, logger: silentLogger });

    // Assert
    expect(runStatusSchema.parse(reply.body)).toMatchObject({
      status: 'SUCCEEDED',
      report: { json: `${prefix}summary.json`, markdown: `${prefix}summary.md` },
      progress: {
        phase: 'Run succeeded',
        groups: { total: 1, succeeded: 1 },
        items: { total: 3, succeeded: 3 },
      },
    });
  });

  it('answers 404 naming the run when Step Functions has no execution by that name', async () => {
    // Prepare
    const executions = new FakeExecutionReader({});

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(reply).toEqual({
      statusCode: 404,
      body: {
        error: 'RunNotFound',
        message: expect.stringContaining(
          'No optimization run "nightly-cpu": Step Functions has no execution by that name',
        ),
      },
    });
    expect(executions.eventsRead).toBe(0);
  });

  it('fails when the run id is not an execution name, before any call to Step Functions', async () => {
    // Prepare
    const executions = new FakeExecutionReader({ description: execution() });

    // Act
    const reply = await describeRun(
      { workflow: 'optimization', runId: 'nightly cpu/1' },
      { executions, logger: silentLogger },
    );

    // Assert
    expect(reply).toEqual({
      statusCode: 400,
      body: {
        error: 'InvalidRunId',
        message:
          'Invalid run id: got "nightly cpu/1", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
      },
    });
    expect(executions.described).toEqual([]);
  });

  it('answers 503 when Step Functions is throttling, so the caller retries', async () => {
    // Prepare
    const executions = new FakeExecutionReader({
      failure: new TransientServiceError(
        'Step Functions DescribeExecution failed: ThrottlingException: Rate exceeded',
      ),
    });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(reply.statusCode).toBe(503);
    expect(reply.body).toMatchObject({
      error: 'ServiceUnavailable',
      message: expect.stringContaining('Rate exceeded'),
    });
  });

  it('answers 404 when the workflow is not deployed with the API', async () => {
    // Prepare
    const executions = new FakeExecutionReader({
      failure: new ResourceNotFoundError('The async-inference workflow is not deployed with this API'),
    });

    // Act
    const reply = await describeRun(
      { workflow: 'async-inference', runId: 'batch-7' },
      { executions, logger: silentLogger },
    );

    // Assert
    expect(reply).toEqual({
      statusCode: 404,
      body: {
        error: 'RunNotFound',
        message: 'ResourceNotFoundError: The async-inference workflow is not deployed with this API',
      },
    });
  });

  it('answers 500 with the error’s name when reading fails otherwise', async () => {
    // Prepare
    const denied = Object.assign(new Error('not authorized to perform: states:DescribeExecution'), {
      name: 'AccessDeniedException',
    });
    const executions = new FakeExecutionReader({ failure: denied });

    // Act
    const reply = await describeRun(optimizationRun, { executions, logger: silentLogger });

    // Assert
    expect(reply).toEqual({
      statusCode: 500,
      body: {
        error: 'InternalError',
        message:
          'Could not read run "nightly-cpu": AccessDeniedException: not authorized to perform: states:DescribeExecution',
      },
    });
  });
});

describe('parseDescribeRunEvent', () => {
  it.each([
    ['/runs/{id}', 'optimization'],
    ['/async-runs/{id}', 'async-inference'],
  ])('maps the resource %s to the %s workflow and takes the id path parameter', (resource, workflow) => {
    // Act
    const parsed = parseDescribeRunEvent(proxyEvent(resource, { pathParameters: { id: 'run-1' } }));

    // Assert
    expect(requestOf(parsed)).toEqual({ workflow, runId: 'run-1' });
  });

  it('leaves the run id out when API Gateway passes no path parameters', () => {
    // Act
    const parsed = parseDescribeRunEvent(proxyEvent('/runs/{id}', { pathParameters: null }));

    // Assert
    expect(requestOf(parsed)).toEqual({ workflow: 'optimization', runId: undefined });
  });

  it('answers 400 when the resource is not one of the run API’s', () => {
    // Act
    const parsed = parseDescribeRunEvent(proxyEvent('/jobs/{id}', { pathParameters: { id: 'x' } }));

    // Assert
    expect(parsed).toEqual(
      invalidRequestRefusal([
        {
          field: 'resource',
          given: '"/jobs/{id}"',
          expected: 'one of /runs/{id}, /async-runs/{id} (the routes describe-run serves)',
        },
      ]),
    );
  });
});
