/**
 * The local stand-in for SageMaker Neo compilation jobs: CreateCompilationJob extracts the ONNX
 * model from its model.tar.gz, optimizes it offline for this machine's CPU (`local/compiler`), and
 * writes the compiled model.tar.gz under the job's output URI, with SageMaker's job statuses.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../../core/contracts/index.js';
import { buildModelArchive } from '../../core/deployment/index.js';
import { scratchDir, LOCAL_IMAGE, copyModelPrefix, extractModelArchive } from '../platform/index.js';
import {
  type CompilationJobDescription,
  type CompilationJobSpec,
  type CompilationStatus,
  CompilationStatuses,
  type Logger,
  type ModelCompiler,
  type ObjectStore,
} from '../../core/ports/index.js';
import { compileModel, type CompileModelInput, type CompileModelResult } from '../compiler/index.js';

export interface LocalCompilerOptions {
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** @default compileModel (ONNX Runtime offline optimization) */
  readonly compile?: (input: CompileModelInput) => Promise<CompileModelResult>;
}

interface LocalJob {
  readonly spec: CompilationJobSpec;
  status: CompilationStatus;
  failureReason?: string;
  artifactUri?: string;
  note?: string;
  run?: Promise<void>;
}

/** The name of the compiled artifact under the job's output URI. */
export const COMPILED_ARCHIVE_NAME = 'model.tar.gz';
const COMPILED_MODEL_FILE_NAME = 'model.onnx';

export class LocalCompiler implements ModelCompiler {
  private readonly jobs = new Map<string, LocalJob>();
  private readonly compile: (input: CompileModelInput) => Promise<CompileModelResult>;

  constructor(private readonly options: LocalCompilerOptions) {
    this.compile = options.compile ?? compileModel;
  }

  createCompilationJob(spec: CompilationJobSpec): Promise<void> {
    if (this.jobs.has(spec.jobName)) return Promise.resolve();
    const job: LocalJob = { spec, status: CompilationStatuses.inProgress };
    this.jobs.set(spec.jobName, job);
    job.run = this.run(job);
    return Promise.resolve();
  }

  describeCompilationJob(jobName: string): Promise<CompilationJobDescription | undefined> {
    const job = this.jobs.get(jobName);
    if (job === undefined) return Promise.resolve(undefined);
    return Promise.resolve({
      jobName,
      status: job.status,
      ...(job.failureReason === undefined ? {} : { failureReason: job.failureReason }),
      ...(job.artifactUri === undefined ? {} : { artifactUri: job.artifactUri }),
      // As Neo names the image that runs its artifact: here, the project model server.
      ...(job.status === CompilationStatuses.completed ? { inferenceImage: LOCAL_IMAGE } : {}),
      ...(job.note === undefined ? {} : { note: job.note }),
    });
  }

  /** A local compilation cannot be interrupted: the job is marked stopped and its result dropped. */
  stopCompilationJob(jobName: string): Promise<void> {
    const job = this.jobs.get(jobName);
    if (job?.status === CompilationStatuses.inProgress) {
      job.status = CompilationStatuses.stopped;
      job.failureReason = 'Stopped by StopCompilationJob';
    }
    return Promise.resolve();
  }

  jobNames(): readonly string[] {
    return [...this.jobs.keys()];
  }

  /** Resolves once no compilation is running (for a clean exit). */
  async drain(): Promise<void> {
    await Promise.all([...this.jobs.values()].flatMap((job) => (job.run === undefined ? [] : [job.run])));
  }

  /** Never rejects: the outcome is the job's status. */
  private async run(job: LocalJob): Promise<void> {
    const { spec } = job;
    const workDir = scratchDir('compile');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new Error(
            `Compilation exceeded its MaxRuntimeInSeconds (${spec.maxRuntimeSeconds} s) and was abandoned`,
          ),
        );
      }, spec.maxRuntimeSeconds * 1000);
    });
    try {
      const archive = await Promise.race([this.compileArchive(spec, workDir), deadline]);
      if (!isRunning(job)) return;
      const artifactUri = `${spec.outputUri.replace(/\/*$/, '/')}${COMPILED_ARCHIVE_NAME}`;
      await this.options.store.putBytes(artifactUri, archive.bytes, 'application/gzip');
      // Stopped meanwhile (StopCompilationJob): the result is dropped.
      if (!isRunning(job)) return;
      job.status = CompilationStatuses.completed;
      job.artifactUri = artifactUri;
      // The port's note says what was really compiled for when it differs from the target; the
      // compiler's first note (always there) only says that compilation ran locally.
      const differs = archive.result.notes.slice(1);
      if (differs.length > 0) job.note = differs.join(' ');
      this.options.logger.info('Compilation completed', {
        jobName: spec.jobName,
        target: spec.target,
        artifactUri,
        durationMs: Math.round(archive.result.durationMs),
        compiledFor: archive.result.compiledFor,
      });
    } catch (error) {
      if (!isRunning(job)) return;
      job.status = CompilationStatuses.failed;
      job.failureReason = error instanceof Error ? error.message : describeError(error);
      this.options.logger.warn('Compilation failed', { jobName: spec.jobName, reason: job.failureReason });
    } finally {
      clearTimeout(timer);
      await rm(workDir, { recursive: true, force: true });
    }
  }

  private async compileArchive(
    spec: CompilationJobSpec,
    workDir: string,
  ): Promise<{ bytes: Uint8Array; result: CompileModelResult }> {
    if (spec.framework !== 'onnx') {
      throw new Error(
        `Local mode compiles ONNX models only: got framework ${JSON.stringify(spec.framework)}, expected "onnx"`,
      );
    }
    // An optimization job's source is a prefix of uncompressed files; a Neo job's, a model.tar.gz.
    const sourcePath = spec.modelDataUrl.endsWith('/')
      ? await copyModelPrefix(this.options.store, spec.modelDataUrl, join(workDir, 'source'))
      : await extractModelArchive(
          await this.options.store.getBytes(spec.modelDataUrl),
          join(workDir, 'source'),
          spec.modelDataUrl,
        );
    const outputModelPath = join(workDir, 'compiled', COMPILED_MODEL_FILE_NAME);
    const result = await this.compile({
      sourceModelPath: sourcePath,
      outputModelPath,
      target: spec.target,
      ...(spec.compilerOptions === undefined ? {} : { compilerOptions: spec.compilerOptions }),
      ...(spec.quantization === undefined ? {} : { quantization: spec.quantization }),
    });
    const bytes = await buildModelArchive({
      modelFileName: COMPILED_MODEL_FILE_NAME,
      modelBytes: await readFile(outputModelPath),
    });
    return { bytes, result };
  }
}

/** A function, not an inline comparison: the status can change while `run` awaits. */
function isRunning(job: LocalJob): boolean {
  return job.status === CompilationStatuses.inProgress;
}
