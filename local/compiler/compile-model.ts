/**
 * The local stand-in for SageMaker Neo: ONNX Runtime offline graph optimization.
 *
 * ONNX Runtime at `graphOptimizationLevel: 'all'` folds BatchNormalization into Conv, fuses
 * Conv+Add+Relu and Gemm+Relu, and rewrites convolutions into the NCHWc blocked layout of this CPU;
 * with `optimizedModelFilePath` it writes the optimized graph as a new model. Like a Neo artifact,
 * that model is hardware-specific: ONNX Runtime warns that it should only run where it was made
 * (https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html#onlineoffline-mode).
 * The model server loads every model with optimizations disabled, so the speed-up measured for a
 * compiled candidate comes from this artifact alone.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { arch, cpus, platform } from 'node:os';
import { dirname, resolve } from 'node:path';

import { InferenceSession } from 'onnxruntime-node';

import { CompilationFailedError } from '../../core/contracts/errors.js';
import { disableOnnxRuntimeTelemetry } from '../model-server/onnx-runtime-telemetry.js';
import { isCompilationTarget, LOCAL_COMPILER_TARGETS } from './compile-targets.js';
import type { CompilationTarget } from './compile-targets.js';

export interface CompileModelInput {
  readonly sourceModelPath: string;
  readonly outputModelPath: string;
  /** A SageMaker Neo / Neuron `TargetDevice`, e.g. `ml_c5`, `ml_inf2`. */
  readonly target: string;
}

export interface CompileModelResult {
  readonly target: CompilationTarget;
  readonly outputModelPath: string;
  /** ONNX Runtime graph optimization level used to produce the artifact. */
  readonly optimizationLevel: 'all';
  readonly durationMs: number;
  readonly sourceBytes: number;
  readonly outputBytes: number;
  /** The hardware the artifact was really compiled for: always this machine's CPU. */
  readonly compiledFor: { readonly platform: string; readonly arch: string; readonly cpu: string };
  /** What a real compilation for `target` would have targeted. */
  readonly targetHardware: string;
  /** True when the target is a CPU of this machine's architecture (x64 or arm64). */
  readonly matchesTargetArchitecture: boolean;
  /** Plain-language caveats for the report, e.g. that an accelerator target ran on the CPU. */
  readonly notes: readonly string[];
}

export async function compileModel(input: CompileModelInput): Promise<CompileModelResult> {
  const started = performance.now();
  const target = checkTarget(input.target);
  const sourceModelPath = resolve(input.sourceModelPath);
  const outputModelPath = resolve(input.outputModelPath);
  if (sourceModelPath === outputModelPath) {
    throw new CompilationFailedError(
      `Output path ${outputModelPath} is the source model: expected a different path for the compiled artifact`,
      { sourceModelPath, outputModelPath },
    );
  }
  const sourceBytes = await sourceSize(sourceModelPath);

  await mkdir(dirname(outputModelPath), { recursive: true });
  // Write next to the destination and rename, so a failed or retried compilation never leaves a
  // half-written artifact under the final name.
  const partialPath = `${outputModelPath}.partial-${process.pid}`;
  try {
    // The first sessions of this process may be these.
    disableOnnxRuntimeTelemetry();
    await optimize(sourceModelPath, partialPath);
    await verifyArtifact(sourceModelPath, partialPath);
    await rename(partialPath, outputModelPath);
  } finally {
    await rm(partialPath, { force: true });
  }
  const outputBytes = (await stat(outputModelPath)).size;
  const hardware = LOCAL_COMPILER_TARGETS[target];
  const compiledFor = { platform: platform(), arch: arch(), cpu: cpus()[0]?.model.trim() ?? 'unknown CPU' };
  const matchesTargetArchitecture = hardware.kind === 'cpu' && hardware.arch === compiledFor.arch;

  return {
    target,
    outputModelPath,
    optimizationLevel: 'all',
    durationMs: performance.now() - started,
    sourceBytes,
    outputBytes,
    compiledFor,
    targetHardware: hardware.description,
    matchesTargetArchitecture,
    notes: compilationNotes(target, compiledFor),
  };
}

function checkTarget(target: string): CompilationTarget {
  if (!isCompilationTarget(target)) {
    throw new CompilationFailedError(
      `Unknown compilation target ${JSON.stringify(target)}: expected one of ${Object.keys(LOCAL_COMPILER_TARGETS).join(', ')}`,
      { target },
    );
  }
  return target;
}

async function sourceSize(sourceModelPath: string): Promise<number> {
  try {
    const info = await stat(sourceModelPath);
    if (info.isFile()) return info.size;
  } catch (error) {
    throw new CompilationFailedError(
      `Source model ${sourceModelPath} does not exist: expected an ONNX model file`,
      { sourceModelPath },
      { cause: error },
    );
  }
  throw new CompilationFailedError(
    `Source model ${sourceModelPath} is not a file: expected an ONNX model file`,
    { sourceModelPath },
  );
}

async function optimize(sourceModelPath: string, optimizedModelFilePath: string): Promise<void> {
  let session: InferenceSession;
  try {
    session = await InferenceSession.create(sourceModelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      optimizedModelFilePath,
      // Optimization is a graph rewrite: extra threads would not speed it up.
      intraOpNumThreads: 1,
      // Errors only: ONNX Runtime's "hardware specific" warning is reported in the result notes.
      logSeverityLevel: 3,
    });
  } catch (error) {
    throw new CompilationFailedError(
      `ONNX Runtime could not load ${sourceModelPath}: ${error instanceof Error ? error.message : String(error)}; expected a valid ONNX model`,
      { sourceModelPath },
      { cause: error },
    );
  }
  await session.release();
}

/** The artifact must load as the server loads it and keep the source's inputs and outputs. */
async function verifyArtifact(sourceModelPath: string, artifactPath: string): Promise<void> {
  const load = (path: string) =>
    InferenceSession.create(path, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'disabled',
      intraOpNumThreads: 1,
    });
  let artifact: InferenceSession | undefined;
  let source: InferenceSession | undefined;
  try {
    artifact = await load(artifactPath);
    source = await load(sourceModelPath);
    const signature = (session: InferenceSession) =>
      `inputs [${session.inputNames.join(', ')}] → outputs [${session.outputNames.join(', ')}]`;
    if (signature(artifact) !== signature(source)) {
      throw new CompilationFailedError(
        `The compiled model has ${signature(artifact)}: expected the source's ${signature(source)}`,
        { sourceModelPath },
      );
    }
  } catch (error) {
    if (error instanceof CompilationFailedError) throw error;
    throw new CompilationFailedError(
      `The compiled model does not load: ${error instanceof Error ? error.message : String(error)}`,
      { sourceModelPath },
      { cause: error },
    );
  } finally {
    await artifact?.release();
    await source?.release();
  }
}

function compilationNotes(
  target: CompilationTarget,
  compiledFor: CompileModelResult['compiledFor'],
): string[] {
  const hardware = LOCAL_COMPILER_TARGETS[target];
  const local = `this machine's ${compiledFor.arch} CPU (${compiledFor.cpu})`;
  const notes = [
    `Compiled locally with ONNX Runtime offline graph optimization (level "all") as a stand-in for SageMaker Neo; the artifact is specific to ${local}.`,
  ];
  if (hardware.kind === 'gpu' || hardware.kind === 'neuron') {
    notes.push(
      `Target ${target} runs on the ${hardware.description}; locally it was compiled for ${local}, not for that accelerator, so its local latency says nothing about the accelerator.`,
    );
  } else if (hardware.arch !== compiledFor.arch) {
    notes.push(
      `Target ${target} is the ${hardware.description}; locally it was compiled for ${local} instead.`,
    );
  }
  return notes;
}
