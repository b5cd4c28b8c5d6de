import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { writeExampleModel } from '../../../local/example-model/example-model.js';
import { writeGenerativeModel } from '../../../local/example-model/generative-model.js';
import { modelServerBuild } from '../../../local/platform/model-server-build.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
let modelDir: string;
let generativeModelDir: string;

beforeAll(async () => {
  modelDir = await mkdtemp(join(tmpdir(), 'model-server-main-'));
  await writeExampleModel(join(modelDir, 'model.onnx'));
  generativeModelDir = await mkdtemp(join(tmpdir(), 'model-server-main-generative-'));
  await writeGenerativeModel(join(generativeModelDir, 'model.onnx'), {
    hiddenSize: 64,
    blocks: 1,
    passes: 1,
  });
});

afterAll(async () => {
  await rm(modelDir, { recursive: true, force: true });
  await rm(generativeModelDir, { recursive: true, force: true });
});

/** main.ts as the local model host starts it: its JavaScript build (local/platform/model-server-build.ts). */
function hostEntry(): string[] {
  return ['--enable-source-maps', modelServerBuild().main];
}

/** main.ts as the image starts it (local/model-server/Dockerfile): the sources, with tsx. */
const IMAGE_ENTRY = ['--import', 'tsx', 'local/model-server/main.ts'];

/** Runs main.ts with an environment, as the local model host does unless `entry` says otherwise. */
function runMain(
  args: string[],
  env: Record<string, string>,
  entry: readonly string[] = hostEntry(),
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...entry, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((exited) => {
    child.on('exit', (code) => {
      exited({ code, stderr });
    });
  });
}

function firstStdoutLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolveLine(line);
    });
    child.once('exit', (code) => {
      reject(new Error(`main.ts exited with ${code} before printing a line`));
    });
  });
}

/** Starts main.ts on the generative model (port 0, one thread); resolves once it prints its URL. */
async function startGenerative(env: Record<string, string>) {
  const child = runMain(['serve'], {
    SAGEMAKER_BIND_TO_PORT: '0',
    MODEL_SERVER_HOST: '127.0.0.1',
    SM_MODEL_DIR: generativeModelDir,
    MODEL_SERVER_INTRA_OP_THREADS: '1',
    ...env,
  });
  const exited = exitOf(child);
  const { url } = JSON.parse(await firstStdoutLine(child)) as { url: string };
  return { child, exited, url };
}

/** One plain TGI-style generate request of `maxNewTokens` tokens. */
function generate(url: string, maxNewTokens: number): Promise<Response> {
  return fetch(`${url}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: 'the model', parameters: { max_new_tokens: maxNewTokens } }),
  });
}

describe('model server main', () => {
  it('serves on the port it prints when asked for port 0, and exits 0 on SIGTERM, started as the image starts it', async () => {
    // Prepare
    const child = runMain(
      ['serve'],
      {
        SAGEMAKER_BIND_TO_PORT: '0',
        MODEL_SERVER_HOST: '127.0.0.1',
        SM_MODEL_DIR: modelDir,
        MODEL_SERVER_INTRA_OP_THREADS: '1',
      },
      IMAGE_ENTRY,
    );
    const exited = exitOf(child);

    // Act
    const listening = JSON.parse(await firstStdoutLine(child)) as {
      event: string;
      port: number;
      url: string;
    };
    const ping = await fetch(`http://127.0.0.1:${listening.port}/ping`);
    child.kill('SIGTERM');
    const { code, stderr } = await exited;

    // Assert
    expect(listening.event).toBe('listening');
    expect(listening.port).toBeGreaterThan(0);
    expect(listening.url).toBe(`http://127.0.0.1:${listening.port}`);
    expect(ping.status).toBe(200);
    expect(code).toBe(0);
    expect(stderr).toContain('"event":"stopped"');
  });

  it('serves a generative model in the format MODEL_SERVER_STREAM_FORMAT names', async () => {
    // Act
    const { child, exited, url } = await startGenerative({ MODEL_SERVER_STREAM_FORMAT: 'lmi-jsonlines' });
    const response = await generate(url, 3);
    const answer = (await response.json()) as { generated_text: string };
    child.kill('SIGTERM');
    const { code } = await exited;

    // Assert: LMI answers a plain request with one object, where TGI would send a list.
    expect(response.status).toBe(200);
    expect(answer.generated_text.trim().split(' ')).toHaveLength(3);
    expect(code).toBe(0);
  });

  it('keeps ONNX Runtime’s telemetry off: no device id under HOME and no debug log', async () => {
    // Prepare: an empty HOME, and no ORT_DISABLE_TELEMETRY in the environment (runMain passes none).
    const home = await mkdtemp(join(tmpdir(), 'model-server-main-home-'));
    const startedAt = Date.now();

    // Act: the server's sessions have started once it answers.
    const { child, exited, url } = await startGenerative({ HOME: home });
    const response = await generate(url, 2);
    await response.arrayBuffer();
    child.kill('SIGTERM');
    const { code } = await exited;
    const written = await readdir(home, { recursive: true });
    await rm(home, { recursive: true, force: true });

    // Assert: with telemetry on, the runtime writes .cache/Microsoft/DeveloperTools/.onnxruntime/deviceid
    // under HOME and an empty /tmp/mat-debug-<pid>.log (onnx-runtime-telemetry.ts).
    expect(response.status).toBe(200);
    expect(code).toBe(0);
    expect(written).toEqual([]);
    // A log of that name may be left from an earlier process of the same pid: only a new one counts.
    const debugLog = `/tmp/mat-debug-${child.pid}.log`;
    expect(existsSync(debugLog) && statSync(debugLog).mtimeMs >= startedAt).toBe(false);
  });

  it('fails with exit code 1 naming the variable when the environment is invalid', async () => {
    // Act
    const { code, stderr } = await exitOf(
      runMain(['serve'], { SM_MODEL_DIR: modelDir, SAGEMAKER_MODEL_SERVER_WORKERS: 'many' }),
    );

    // Assert
    expect(code).toBe(1);
    expect(stderr).toContain(
      'SAGEMAKER_MODEL_SERVER_WORKERS: got \\"many\\", expected an integer from 1 to 64',
    );
  });

  it('fails with exit code 2 without the serve argument', async () => {
    // Act
    const { code, stderr } = await exitOf(runMain(['train'], { SM_MODEL_DIR: modelDir }));

    // Assert
    expect(code).toBe(2);
    expect(stderr).toContain('expected \\"serve\\"');
  });
});
