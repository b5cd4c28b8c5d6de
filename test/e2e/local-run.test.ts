/**
 * The whole local path, in-process: the CLI runs the synthesized optimization state machine over
 * the local adapters, with real model servers, a real compilation and real load tests (kept short),
 * and the compiled candidate is faster. It compares two model servers' latency, so `npm test` runs
 * this file alone (jest.config.js, SERIAL_SUITES); the other outcomes of the same path are in
 * local-run-outcomes.test.ts, beside the other suites.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows } from '../support/synthesized-workflows.js';
import { isAlive } from '../local/platform/support/model-artifacts.js';
import { cli, type CliContext, tinyInput } from './support/local-cli.js';
import { RUN_LOCK_FILE } from '../../local/cli/run-lock.js';

let context: CliContext;

beforeAll(async () => {
  context = { dir: await mkdtemp(join(tmpdir(), 'e2e-local-')), workflows: synthesizedWorkflows() };
}, 120_000);

afterAll(async () => {
  await rm(context.dir, { recursive: true, force: true });
});

describe('local mode end to end', () => {
  it('runs the synthesized workflow through the CLI: three reports, and the compiled candidate is faster', async () => {
    // Act: both candidates measured at once, each model server on one thread, so that whatever else
    // this machine runs slows both alike (and the run takes half as long as one after the other).
    const { outcome, stdout, stderr } = await cli(
      context,
      'e2e-happy',
      tinyInput({
        maxConcurrentCandidates: 2,
        loadPlan: { steps: [1], warmupSeconds: 0.3, stepDurationSeconds: 1, stopAtPlateau: false },
      }),
    );

    // Assert
    expect(stderr()).toBe('');
    expect(outcome.exitCode).toBe(0);
    const files = outcome.reportFiles;
    expect(files).toEqual({
      json: join(context.dir, 'runs', 'e2e-happy', 'report.json'),
      markdown: join(context.dir, 'runs', 'e2e-happy', 'report.md'),
      html: join(context.dir, 'runs', 'e2e-happy', 'report.html'),
    });
    expect([files?.markdown, files?.html].every((file) => file !== undefined && existsSync(file))).toBe(true);
    // The run released its run id's lock; its report now keeps the id from being used again.
    expect(existsSync(join(context.dir, 'runs', 'e2e-happy', RUN_LOCK_FILE))).toBe(false);
    const report = JSON.parse(await readFile(files?.json ?? '', 'utf8')) as Report;
    expect(report.measuredLocally).toBe(true);
    const p50 = (id: string) => report.candidates.find((c) => c.id === id)?.steps[0]?.latencyMs?.p50 ?? NaN;
    expect(report.candidates.map((c) => [c.id, c.status])).toEqual([
      ['plain', 'MEASURED'],
      ['neo', 'MEASURED'],
    ]);
    expect(p50('neo')).toBeLessThan(p50('plain'));
    // The local CLI measures the sustainable load 3 times (two repeat rounds through the workflow).
    expect(report.candidates.map((c) => [c.id, c.repeats?.length, c.spread?.n])).toEqual([
      ['plain', 2, 3],
      ['neo', 2, 3],
    ]);
    expect(report.compiledComparisons?.map((c) => [c.uncompiledId, c.compiledId])).toEqual([
      ['plain', 'neo'],
    ]);
    // The deploy requests are the ones the local run sent, and say which image AWS would use.
    const neo = report.candidates.find((c) => c.id === 'neo')?.deploy;
    expect(neo?.createModel.PrimaryContainer.Image).toBe('local');
    expect(neo?.onAws).toEqual({
      imageUri: '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3',
      source: 'table: onnx 1.5.0 compiled for x86 CPU (AWS docs: Neo Inference Container Images)',
    });
    // report.md shows the local files a reader opens; report.json keeps the URIs.
    const markdown = await readFile(files?.markdown ?? '', 'utf8');
    expect(markdown).toContain('- Raw result: load-tests/plain/result.json\n');
    // The compiled candidate's requests (the uncompiled ONNX one has no AWS image, so none are shown).
    expect(markdown).toContain(
      '; model data compiled/ml_c5/model.tar.gz (s3://local-artifacts/runs/e2e-happy/compiled/ml_c5/model.tar.gz in the requests).',
    );
    expect(report.candidates[0]?.resultUri).toBe(
      's3://local-artifacts/runs/e2e-happy/load-tests/plain/result.json',
    );
    expect(stdout()).toContain('Summary of run e2e-happy');
    expect(stdout()).toContain('runs/e2e-happy/report.html');
    expect(outcome.serverPids).toHaveLength(2);
    expect(outcome.serverPids.filter(isAlive)).toEqual([]);
  }, 60_000);
});
