import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXAMPLE_MODEL_URI, EXAMPLE_PAYLOAD_URI } from '../../../local/cli/example-objects.js';
import { type CliIo, runCli } from '../../../local/cli/main.js';
import type { MachineLoadSample } from '../../../local/platform/machine-load.js';
import type { SynthesizedWorkflows } from '../../support/synthesized-workflows.js';
import { QUIET_MACHINE } from '../../local/cli/support/cli-sandbox.js';

/**
 * What the end-to-end suites share: a small run input over the example model, and the CLI run
 * in-process. The suites are two files: the one that compares the compiled and uncompiled model
 * servers runs alone (jest.config.js, SERIAL_SUITES), the others beside the rest.
 */

/** One thread per server: two servers never run at once, and the figures stay steady on 2 cores. */
export const ONE_THREAD = { MODEL_SERVER_INTRA_OP_THREADS: '1' };

export function tinyInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: EXAMPLE_MODEL_URI, framework: 'onnx', inputShape: { input: [1, 3, 32, 32] } },
    payload: { uri: EXAMPLE_PAYLOAD_URI, contentType: 'application/octet-stream' },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { id: 'plain', instanceType: 'ml.c5.large', environment: ONE_THREAD },
      { id: 'neo', instanceType: 'ml.c5.large', compiledFor: 'ml_c5', environment: ONE_THREAD },
    ],
    loadPlan: { steps: [1], warmupSeconds: 0.5, stepDurationSeconds: 1.5, stopAtPlateau: false },
    sla: { p95LatencyMs: 1000 },
    maxConcurrentCandidates: 1,
    ...overrides,
  };
}

/** The suite's folder (the CLI's working directory) and synthesized workflows. */
export interface CliContext {
  readonly dir: string;
  readonly workflows: SynthesizedWorkflows;
}

/** Runs the CLI in-process on `input`, in `context.dir`; `watch` sees stdout as it is written. */
export async function cli(
  context: CliContext,
  runId: string,
  input: Record<string, unknown>,
  options: {
    watch?: (stdout: string) => void;
    signal?: AbortSignal;
    /** The machine's load readings. @default a quiet machine's, whatever runs beside the test */
    sampleMachineLoad?: () => MachineLoadSample;
  } = {},
) {
  const path = join(context.dir, `${runId}.json`);
  await writeFile(path, JSON.stringify(input));
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        options.watch?.(stdout);
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: context.dir,
    workflows: context.workflows,
    sampleMachineLoad: options.sampleMachineLoad ?? QUIET_MACHINE,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const outcome = await runCli(
    ['--input', path, '--run-id', runId, '--store', 'store', '--runs', 'runs'],
    io,
  );
  return { outcome, stdout: () => stdout, stderr: () => stderr };
}
