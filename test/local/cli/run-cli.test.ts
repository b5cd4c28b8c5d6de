import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { defaultRunId, runCli } from '../../../local/cli/main.js';
import { cliSandbox } from './support/cli-sandbox.js';

const sandbox = cliSandbox('run-cli-');
const { capture, inputFile } = sandbox;

describe('runCli', () => {
  it('prints the usage with --help and exits 0', async () => {
    // Prepare
    const { io, stdout } = capture();

    // Act
    const outcome = await runCli(['--help'], io);

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(stdout()).toMatch(/^Usage: npm start -- \[--input FILE\]/);
  });

  it('fails with exit code 2 and the usage when the command line is wrong', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runCli(['--input'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/--input.*argument missing[\s\S]*Usage:/);
  });

  it('fails with exit code 2 when the input file does not exist, naming it', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runCli(['--input', 'missing.json'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toContain(`Cannot read the run input ${join(sandbox.dir(), 'missing.json')}`);
  });

  it('fails with exit code 2 when the input is nested 100,000 levels deep, naming the field at level 33', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile(`{"model":{"environment":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);

    // Act
    const outcome = await runCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toBe(
      'Invalid run input in input.json:\n' +
        `  - model.environment${'[0]'.repeat(30)}: got an array at nesting level 33, expected at most 32 levels of nested objects and arrays (no run input field is nested more than a few levels deep)\n`,
    );
  });

  it('fails with exit code 2 when the input is not JSON', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile('{ "model": ');

    // Act
    const outcome = await runCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/^The run input .*input\.json is not valid JSON: /);
  });

  it('lists each invalid field with what was given and what was expected, without a stack trace', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({
      model: { artifactUri: 'file:///nowhere/model.onnx', framework: 'onnx' },
      payload: { uri: 's3://local-artifacts/models/example-cnn/payload.bin' },
      candidates: [{ instanceType: 'ml.c5.large' }],
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: -3 },
    });

    // Act
    const outcome = await runCli(['--input', path, '--store', 'store', '--runs', 'runs'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    const lines = stderr().trimEnd().split('\n');
    expect(lines[0]).toBe('Invalid run input in input.json:');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}- sla\.p95LatencyMs: got -3, expected /)]);
    expect(stderr()).not.toMatch(/\n\s+at /);
  });

  it('reports missing objects field by field before anything runs', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({
      model: { artifactUri: 'file:///nowhere/model.onnx', framework: 'onnx' },
      payload: { uri: 's3://local-artifacts/models/nothing/payload.bin' },
      candidates: [{ instanceType: 'ml.c5.large' }],
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: 20 },
    });

    // Act
    const outcome = await runCli(['--input', path, '--store', 'store'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toContain(
      '  - model.artifactUri: got "file:///nowhere/model.onnx", expected an object that exists and that the workflow can read',
    );
    expect(stderr()).toContain(
      '  - payload.uri: got "s3://local-artifacts/models/nothing/payload.bin", expected an object',
    );
  });

  it('refuses what local mode cannot run, naming the field', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({ model: { artifactUri: 'file:///m.pt', framework: 'pytorch' } });

    // Act
    const outcome = await runCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toContain('  - model.framework: got "pytorch", expected "onnx" in local mode');
  });

  it('fails with exit code 2 on an invalid run id', async () => {
    // Prepare
    const { io, stderr } = capture();

    // Act
    const outcome = await runCli(['--input', 'x.json', '--run-id', 'has space'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toBe('--run-id: got "has space", expected 1–80 letters, digits, "-" or "_"\n');
  });
});

describe('defaultRunId', () => {
  it('starts with the date and time, then a random suffix', () => {
    // Act
    const runId = defaultRunId(new Date('2026-11-22T07:13:22.500Z'));

    // Assert
    expect(runId).toMatch(/^local-20261122-071322-[0-9a-f]{4}$/);
  });
});
