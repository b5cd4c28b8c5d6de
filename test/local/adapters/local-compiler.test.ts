import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { extract } from 'tar';
import type { CompilationJobSpec } from '../../../core/ports/index.js';
import { LocalCompiler } from '../../../local/adapters/local-compiler.js';
import type { CompileModelResult } from '../../../local/compiler/compile-model.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { brokenModelArchive, exampleModelArchive, waitFor } from '../platform/support/model-artifacts.js';

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let store: MemoryObjectStore;
let scratch: string;

beforeEach(async () => {
  store = new MemoryObjectStore().seed(MODEL_URI, await exampleModelArchive());
  scratch = await mkdtemp(join(tmpdir(), 'local-compiler-'));
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function jobSpec(overrides: Partial<CompilationJobSpec> = {}): CompilationJobSpec {
  return {
    jobName: 'mso-r1-cj-ml-c5',
    modelDataUrl: MODEL_URI,
    framework: 'onnx',
    inputShape: { input: [1, 3, 32, 32] },
    target: 'ml_c5',
    outputUri: 's3://local-artifacts/runs/r1/compiled/ml_c5/',
    maxRuntimeSeconds: 900,
    tags: {},
    ...overrides,
  };
}

async function finished(compiler: LocalCompiler, jobName: string) {
  await waitFor(
    `${jobName} to finish`,
    async () => (await compiler.describeCompilationJob(jobName))?.status !== 'INPROGRESS',
  );
  return compiler.describeCompilationJob(jobName);
}

describe('LocalCompiler', () => {
  it('compiles the packaged ONNX model into a model.tar.gz under the output URI, served by the local image', async () => {
    // Prepare
    const compiler = new LocalCompiler({ store, logger: silentLogger });

    // Act
    await compiler.createCompilationJob(jobSpec());
    const started = await compiler.describeCompilationJob('mso-r1-cj-ml-c5');
    const job = await finished(compiler, 'mso-r1-cj-ml-c5');

    // Assert
    expect(started?.status).toBe('INPROGRESS');
    expect(job).toEqual({
      jobName: 'mso-r1-cj-ml-c5',
      status: 'COMPLETED',
      artifactUri: 's3://local-artifacts/runs/r1/compiled/ml_c5/model.tar.gz',
      inferenceImage: 'local',
    });
    const archive = store.objects.get('s3://local-artifacts/runs/r1/compiled/ml_c5/model.tar.gz')?.body;
    await writeFile(join(scratch, 'model.tar.gz'), archive ?? new Uint8Array());
    await extract({ file: join(scratch, 'model.tar.gz'), cwd: scratch });
    expect((await readdir(scratch)).sort()).toEqual(['model.onnx', 'model.tar.gz']);
  });

  it('says in the note that a GPU target was compiled for this machine’s CPU', async () => {
    // Prepare
    const compiler = new LocalCompiler({ store, logger: silentLogger });

    // Act
    await compiler.createCompilationJob(
      jobSpec({ jobName: 'gpu', target: 'ml_g4dn', outputUri: 's3://b/c/g4dn' }),
    );
    const job = await finished(compiler, 'gpu');

    // Assert
    expect(job?.status).toBe('COMPLETED');
    expect(job?.artifactUri).toBe('s3://b/c/g4dn/model.tar.gz');
    expect(job?.note).toMatch(
      /^Target ml_g4dn runs on the NVIDIA T4 GPU of ml\.g4dn; locally it was compiled for this machine's/,
    );
  });

  it('runs one compilation per job name, however often the job is created', async () => {
    // Prepare
    const targets: string[] = [];
    const compiler = new LocalCompiler({
      store,
      logger: silentLogger,
      compile: (input) => {
        targets.push(input.target);
        return Promise.reject(new Error('not needed'));
      },
    });

    // Act
    await compiler.createCompilationJob(jobSpec());
    await compiler.createCompilationJob(jobSpec());
    await compiler.drain();

    // Assert
    expect(targets).toEqual(['ml_c5']);
    expect(compiler.jobNames()).toEqual(['mso-r1-cj-ml-c5']);
  });

  it('gives the compiler the job’s CompilerOptions, the Neuron flags that choose its precision', async () => {
    // Prepare
    const received: (string | undefined)[] = [];
    const compiler = new LocalCompiler({
      store,
      logger: silentLogger,
      compile: (input) => {
        received.push(input.compilerOptions);
        return Promise.reject(new Error('not needed'));
      },
    });

    // Act
    await compiler.createCompilationJob(
      jobSpec({ jobName: 'mso-r1-cj-ml-inf2', target: 'ml_inf2', compilerOptions: '--auto-cast matmult' }),
    );
    await compiler.drain();

    // Assert
    expect(received).toEqual(['--auto-cast matmult']);
  });

  it('fails the job with the compiler’s reason when the model is not valid ONNX', async () => {
    // Prepare
    store.seed(MODEL_URI, await brokenModelArchive());
    const compiler = new LocalCompiler({ store, logger: silentLogger });

    // Act
    await compiler.createCompilationJob(jobSpec());
    const job = await finished(compiler, 'mso-r1-cj-ml-c5');

    // Assert
    expect(job?.status).toBe('FAILED');
    expect(job?.failureReason).toMatch(
      /^ONNX Runtime could not load .*model\.onnx: .*expected a valid ONNX model$/,
    );
  });

  it('fails the job when the framework is not ONNX, saying what local mode compiles', async () => {
    // Prepare
    const compiler = new LocalCompiler({ store, logger: silentLogger });

    // Act
    await compiler.createCompilationJob(jobSpec({ framework: 'pytorch' }));
    const job = await finished(compiler, 'mso-r1-cj-ml-c5');

    // Assert
    expect(job).toMatchObject({
      status: 'FAILED',
      failureReason: 'Local mode compiles ONNX models only: got framework "pytorch", expected "onnx"',
    });
  });

  it('marks a stopped job STOPPED and drops its artifact', async () => {
    // Prepare
    let release: ((result: CompileModelResult) => void) | undefined;
    const compiler = new LocalCompiler({
      store,
      logger: silentLogger,
      compile: () => new Promise((resolve) => (release = resolve)),
    });
    await compiler.createCompilationJob(jobSpec());
    await waitFor('the compilation to start', () => release !== undefined);

    // Act
    await compiler.stopCompilationJob('mso-r1-cj-ml-c5');
    release?.({ notes: [] } as unknown as CompileModelResult);
    await compiler.drain();

    // Assert
    expect(await compiler.describeCompilationJob('mso-r1-cj-ml-c5')).toMatchObject({ status: 'STOPPED' });
    expect(store.objects.has('s3://local-artifacts/runs/r1/compiled/ml_c5/model.tar.gz')).toBe(false);
  });

  it('answers undefined for a job it does not know', async () => {
    // Act
    const job = await new LocalCompiler({ store, logger: silentLogger }).describeCompilationJob('nope');

    // Assert
    expect(job).toBeUndefined();
  });

  it('loads ONNX Runtime only when a job compiles, so the local environments and CLIs start without it', () => {
    // Prepare
    const script = [
      "import { createRequire } from 'node:module';",
      "await import('./local/environment/index.ts');",
      "await import('./local/cli/main.ts');",
      "await import('./local/cli/async/main.ts');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "process.stdout.write(JSON.stringify(loaded.filter((file) => file.includes('/onnxruntime-node/'))));",
    ].join('\n');

    // Act
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });

    // Assert
    expect({ status: child.status, stderr: child.stderr, loaded: child.stdout }).toEqual({
      status: 0,
      stderr: '',
      loaded: '[]',
    });
  });
});
