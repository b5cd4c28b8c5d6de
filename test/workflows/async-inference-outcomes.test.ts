/**
 * How a local async run ends when its inputs or the run itself fail: the synthesized definition on
 * the local runner, a local async endpoint with the example model, the same step handlers as on
 * AWS. Covered: a run none of whose inputs completed ("No input completed", not "Run succeeded"),
 * and a failed run whose error names the results it recorded before the failure.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { batchResultsUri } from '../../core/async/batch-results.js';
import type {
  AsyncRunSummary,
  InvokeAsyncInferenceEvent,
  NoInputCompletedCause,
} from '../../core/contracts/async-state.js';
import { cleanUpInCause } from '../../core/contracts/clean-up-account.js';
import { completedInCause } from '../../core/contracts/completed-work.js';
import { ErrorNames } from '../../core/contracts/errors.js';
import { EXIT_CODES, exitCodeOfRun } from '../../core/contracts/exit-codes.js';
import {
  type LocalAsyncEnvironment,
  runLocalAsyncInference,
} from '../../local/environment/async-environment.js';
import { runAsyncCli } from '../../local/cli/async/main.js';
import type { StepHandler } from '../../local/environment/step-handlers.js';
import { localAsyncSandbox, samples } from '../local/async/support/async-run.js';

const MODEL_URI = 's3://local-artifacts/models/outcomes/model.tar.gz';
const INPUT = (name: string): string => `s3://local-artifacts/inputs/outcomes/${name}.bin`;
/** The model server answers a body of three bytes with a 400 (not a whole sample): a failed input. */
const TRUNCATED = 'truncated';
const PAIR = 'pair';

const sandbox = localAsyncSandbox('async-outcomes-', MODEL_URI);

async function prepare(name: string): Promise<LocalAsyncEnvironment> {
  const environment = await sandbox.prepare(name);
  await environment.store.putBytes(INPUT(PAIR), samples(2));
  await environment.store.putBytes(INPUT(TRUNCATED), new Uint8Array([1, 2, 3]));
  return environment;
}

function runInput(inputs: readonly string[], maxConcurrency: number): Record<string, unknown> {
  return {
    name: 'outcomes',
    endpoint: {
      modelDataUrl: MODEL_URI,
      framework: 'onnx',
      image: 'local',
      instanceType: 'ml.c5.large',
      maxInstanceCount: 1,
      // Pairs fill a batch of 2 and run at once.
      environment: {
        MODEL_SERVER_MAX_BATCH_SIZE: '2',
        MODEL_SERVER_MAX_BATCH_DELAY_MS: '5000',
        MODEL_SERVER_INTRA_OP_THREADS: '1',
      },
    },
    inputs: inputs.map(INPUT),
    contentType: 'application/octet-stream',
    invocationTimeoutSeconds: 60,
    requestTtlSeconds: 60,
    maxConcurrency,
  };
}

async function runResources(env: LocalAsyncEnvironment, runId: string): Promise<unknown> {
  return env.host.listRunResources(runId, 'mso-');
}

const NOTHING_LEFT = {
  endpoints: [],
  endpointConfigs: [],
  models: [],
  compilationJobs: [],
  optimizationJobs: [],
};

describe('the async-inference workflow when inputs or the run fail', () => {
  it('fails when every input failed: "No input completed" with the reasons summarised, summary written, exit code 4, nothing left', async () => {
    // Prepare: three inputs the model refuses.
    const env = await prepare('none-completed');

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput([TRUNCATED, TRUNCATED, TRUNCATED], 3) as never,
      runId: 'outcomes-none-completed',
    });

    // Assert: FAILED by the workflow's own end state, not a caught failure, with its cause.
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: ErrorNames.noInputCompleted });
    const { cause } = outcome.result as { cause: string };
    const parsed = JSON.parse(cause) as NoInputCompletedCause;
    expect(parsed.outcome).toBe('all-inputs-failed');
    expect(parsed.errorMessage).toBe(
      `None of the 3 inputs completed: 3 failed, 0 timed out. Why, and each input: ${parsed.summary.summaryMarkdownUri}`,
    );
    expect(parsed.counts).toEqual({ inputs: 3, failed: 3, timedOut: 0 });
    expect(parsed.failureReasons).toEqual([
      {
        reason: expect.stringMatching(
          /^Failed: ClientError: Received client error \(400\) from model with message '\{'error':'Raw body has 3 bytes/,
        ),
        inputs: 3,
      },
    ]);
    const written = JSON.parse(
      new TextDecoder().decode(await env.store.getBytes(parsed.summary.summaryUri)),
    ) as AsyncRunSummary;
    expect(written).toMatchObject({ inputs: 3, completed: 0, failed: 3, outcome: 'all-inputs-failed' });
    const markdown = new TextDecoder().decode(await env.store.getBytes(parsed.summary.summaryMarkdownUri));
    expect(markdown).toContain('Why inputs did not complete (the most frequent reasons):');
    expect(markdown).toContain(
      "- 3 inputs: Failed: ClientError: Received client error (400) from model with message '{'error'",
    );
    // Clean-up ran on the success path, its account in the cause as a failed run's is.
    expect(parsed.cleanUp).toBe('Clean-up deleted 1 endpoint, 1 endpoint config, 1 model; nothing left.');
    expect(cleanUpInCause(cause)).toBe(parsed.cleanUp);
    expect(await runResources(env, 'outcomes-none-completed')).toEqual(NOTHING_LEFT);
    expect(exitCodeOfRun({ status: 'FAILED', error: ErrorNames.noInputCompleted })).toBe(
      EXIT_CODES.allFailed,
    );
  }, 90_000);

  it('still succeeds when one input of several completed, its outcome partial', async () => {
    // Prepare
    const env = await prepare('one-completed');

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput([TRUNCATED, PAIR], 2) as never,
      runId: 'outcomes-one-completed',
    });

    // Assert
    expect(outcome.result.status).toBe('SUCCEEDED');
    const summary = (outcome.result as { output: unknown }).output as AsyncRunSummary;
    expect(summary).toMatchObject({ outcome: 'partial', completed: 1, failed: 1 });
    expect(summary.failureReasons).toHaveLength(1);
  }, 90_000);

  it('a failed async run names the results it completed: the batches recorded before the failure, their counts and files', async () => {
    // Prepare: 42 inputs (two batches of 40 and 2), one at a time; the endpoint is deleted from
    // outside before the second batch's last input is sent, so the run fails in its second batch.
    const env = await prepare('names-completed');
    const invoke = env.handlers['invoke-async-inference'];
    if (invoke === undefined) throw new Error('no invoke-async-inference handler');
    const overrides: Record<string, StepHandler> = {
      'invoke-async-inference': async (payload, signal) => {
        const { itemIndex, endpointName } = payload as InvokeAsyncInferenceEvent;
        if (itemIndex === 41) await env.host.deleteEndpoint(endpointName);
        return invoke(payload, signal);
      },
    };
    const runId = 'outcomes-names-completed';

    // Act
    const outcome = await runLocalAsyncInference({
      environment: env,
      stateMachine: sandbox.workflows.asyncInference,
      input: runInput(
        Array.from({ length: 42 }, () => PAIR),
        1,
      ) as never,
      runId,
      overrides,
    });

    // Assert: the run's error is the endpoint's, and its cause names the first batch's results.
    expect(outcome.result).toMatchObject({ status: 'FAILED', error: ErrorNames.endpointFailed });
    const { cause } = outcome.result as { cause: string };
    const runPrefixUri = outcome.plan?.runPrefixUri ?? '';
    expect(completedInCause(cause)).toEqual({
      message: expect.stringMatching(
        /^Before the failure, 1 of 2 batches recorded their results: 40 inputs of 42, 40 completed, 0 failed, 0 timed out .* The other 2 inputs have no recorded result/,
      ),
      locations: [batchResultsUri(runPrefixUri, 0)],
    });
    const recorded = JSON.parse(
      new TextDecoder().decode(await env.store.getBytes(batchResultsUri(runPrefixUri, 0))),
    ) as { results: { status: string; outputLocation?: string }[] };
    expect(
      recorded.results.filter((item) => item.status === 'Completed' && item.outputLocation),
    ).toHaveLength(40);
    // The clean-up after the failure ran as before: its account in the cause, nothing left.
    expect(cleanUpInCause(cause)).toMatch(/^Clean-up deleted /);
    expect(await runResources(env, runId)).toEqual(NOTHING_LEFT);
  }, 120_000);

  it('fails when every input failed, from npm run start:async: exit code 4, the summary printed, the reasons and the summary named', async () => {
    // Prepare: the model and the inputs in the store the command line reads.
    const cwd = join(sandbox.dir, 'cli');
    await prepare('cli');
    await sandbox.closeCurrent();
    const path = join(sandbox.dir, 'none-completed.json');
    await writeFile(path, JSON.stringify(runInput([TRUNCATED, TRUNCATED], 2)));
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      cwd,
      workflows: sandbox.workflows,
    };

    // Act
    const outcome = await runAsyncCli(
      ['--input', path, '--store', 'store', '--runs', 'runs', '--run-id', 'cli-none-completed'],
      io,
    );

    // Assert
    expect(outcome.exitCode).toBe(EXIT_CODES.allFailed);
    expect(out.join('')).toContain('2 input(s): 0 completed, 2 failed, 0 timed out');
    expect(err.join('')).toContain(
      'Run cli-none-completed ended FAILED with NoInputCompletedError: None of the 2 inputs completed: 2 failed, 0 timed out. Why, and each input: runs/cli-none-completed/async/summary.md',
    );
  }, 120_000);
});
