import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { RunsIndexDocument } from '../../../core/report/runs-index.js';
import { runAsyncCli } from '../../../local/cli/async/main.js';
import { runCli } from '../../../local/cli/main.js';
import { cliSandbox } from './support/cli-sandbox.js';

/** Every local run that took its run id rewrites `<runs>/index.html` and `index.json` when it ends. */

const sandbox = cliSandbox('runs-index-after-run-');
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

function readIndex(): RunsIndexDocument {
  return JSON.parse(readFileSync(join(sandbox.dir(), 'runs', 'index.json'), 'utf8')) as RunsIndexDocument;
}

describe('the runs index after a local run', () => {
  it('lists a run refused before its report as failed, without adding to the refusal’s output', async () => {
    // Prepare
    const { io, stdout } = sandbox.capture();
    const path = await sandbox.inputFile({
      model: { artifactUri: 'file:///nowhere/model.onnx', framework: 'onnx' },
      payload: { uri: 's3://local-artifacts/models/nothing/payload.bin' },
      candidates: [{ instanceType: 'ml.c5.large' }],
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: 20 },
    });

    // Act
    const outcome = await runCli(['--input', path, '--store', 'store', '--run-id', 'refused'], io);

    // Assert
    expect(outcome.exitCode).toBe(2);
    expect(readIndex().runs.map(({ runId, outcome: ended }) => [runId, ended])).toEqual([
      ['refused', 'failed'],
    ]);
    expect(stdout()).not.toContain('Runs index');
    expect(readFileSync(join(sandbox.dir(), 'runs', 'index.html'), 'utf8')).toContain('<code>refused</code>');
  });

  it('lists an async run that completed with its summary’s links, and names the page', async () => {
    // Prepare
    const { io, stdout } = sandbox.capture();

    // Act
    const outcome = await runAsyncCli(
      ['--input', join(EXAMPLES, 'local-async.json'), '--store', 'store', '--run-id', 'batch'],
      io,
    );

    // Assert
    expect(outcome.exitCode).toBe(0);
    expect(readIndex().runs.map(({ runId, outcome: ended, links }) => ({ runId, ended, links }))).toEqual([
      {
        runId: 'batch',
        ended: 'async-completed',
        links: {
          markdown: 'batch/async/summary.md',
          json: 'batch/async/summary.json',
          html: 'batch/async/report.html',
        },
      },
    ]);
    expect(stdout()).toContain(`Runs index: ${join('runs', 'index.html')}\n`);
  }, 300_000);
});
