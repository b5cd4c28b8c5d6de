import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { ASYNC_USAGE, runAsyncCli } from '../../../../local/cli/async/main.js';
import { cliSandbox } from '../support/cli-sandbox.js';

const sandbox = cliSandbox('async-cli-');
const { capture, inputFile } = sandbox;

const VALID = {
  endpoint: {
    modelDataUrl: 's3://local-artifacts/models/example-cnn/model.tar.gz',
    framework: 'onnx',
    instanceType: 'ml.c5.large',
  },
  inputPrefix: 's3://local-artifacts/inputs/example-cnn/',
};

describe('runAsyncCli', () => {
  it('prints the usage with --help and exits 0', async () => {
    const { io, stdout } = capture();
    const outcome = await runAsyncCli(['--help'], io);
    expect(outcome.exitCode).toBe(0);
    expect(stdout()).toMatch(/^Usage: npm run start:async -- \[--input FILE\]/);
  });

  it('fails with exit code 2 when the input is nested 100,000 levels deep, naming the field at level 33', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile(`{"model":{"environment":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);

    // Act
    const outcome = await runAsyncCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toBe(
      'Invalid run input in input.json:\n' +
        `  - model.environment${'[0]'.repeat(30)}: got an array at nesting level 33, expected at most 32 levels of nested objects and arrays (no run input field is nested more than a few levels deep)\n`,
    );
  });

  it('fails with exit code 2 when the input breaks the async schema, naming the field', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({ ...VALID, requestTtlSeconds: 10 });

    // Act
    const outcome = await runAsyncCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/Invalid run input in input\.json:\n {2}- requestTtlSeconds: got 10, expected/);
  });

  it('fails with exit code 2 when the input asks what local mode cannot do', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({ ...VALID, endpoint: { ...VALID.endpoint, framework: 'pytorch' } });

    // Act
    const outcome = await runAsyncCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toContain('- endpoint.framework: got "pytorch", expected "onnx" in local mode');
  });

  it('fails with exit code 2 naming every problem at once, local and schema alike', async () => {
    // Prepare
    const { io, stderr } = capture();
    const path = await inputFile({
      ...VALID,
      endpoint: { ...VALID.endpoint, framework: 'pytorch' },
      requestTtlSeconds: 10,
    });

    // Act
    const outcome = await runAsyncCli(['--input', path], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toContain('- endpoint.framework: got "pytorch", expected "onnx" in local mode');
    expect(stderr()).toMatch(/- requestTtlSeconds: got 10, expected/);
  });

  it('fails with exit code 2 when the input file is not JSON', async () => {
    const { io, stderr } = capture();
    const path = join(sandbox.dir(), 'broken.json');
    await writeFile(path, '{ not json');
    const outcome = await runAsyncCli(['--input', path], io);
    expect(outcome.exitCode).toBe(2);
    expect(stderr()).toMatch(/is not valid JSON/);
  });

  it('--help lists every exit code an async run ends with, as the shared scheme gives them', () => {
    // Act
    const exitCodes = ASYNC_USAGE.slice(ASYNC_USAGE.indexOf('Exit codes:')).replaceAll('\n', ' ');

    // Assert: it said 0 even when inputs failed, where a partial run exits 5 and one with none 4.
    expect(exitCodes).toBe(
      'Exit codes: 0 every input completed (--plan: the run would start), 1 the run failed, 2 invalid ' +
        'command line or input (--plan: the run would be refused), 4 no input completed, 5 partial (some ' +
        'inputs failed or timed out), 130 interrupted (Ctrl-C, SIGINT), 143 terminated (SIGTERM).',
    );
  });
});
