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
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { arch, cpus, platform } from 'node:os';
import { dirname, resolve } from 'node:path';

import { InferenceSession } from 'onnxruntime-node';

import {
  type AutoCast,
  DEFAULT_AUTO_CAST,
  isNeuronTarget,
  parseCompilerOptions,
  CompilationFailedError,
} from '../../core/contracts/index.js';
import type { Quantization } from '../../core/contracts/index.js';
import { autoCastModel, type AutoCastResult } from './auto-cast.js';
import { quantizeModel } from './quantize.js';
import { disableOnnxRuntimeTelemetry } from '../model-server/index.js';
import { isCompilationTarget, LOCAL_COMPILER_TARGETS } from './compile-targets.js';
import type { CompilationTarget } from './compile-targets.js';

export interface CompileModelInput {
  readonly sourceModelPath: string;
  readonly outputModelPath: string;
  /** A SageMaker Neo / Neuron `TargetDevice`, e.g. `ml_c5`, `ml_inf2`. */
  readonly target: string;
  /**
   * A Neuron target's compiler flags (`OutputConfig.CompilerOptions`), e.g.
   * `--auto-cast all --auto-cast-type fp16`; absent, the compiler's own default precision.
   */
  readonly compilerOptions?: string;
  /** int8 quantization (quantize.ts), calibrated on inputs drawn from its range; not for a Neuron target. */
  readonly quantization?: Quantization;
}

/** The precision a Neuron target's artifact computes in, and how the graph was changed for it. */
export interface CompiledPrecision extends AutoCast {
  readonly roundedWeights: number;
  readonly castActivations: number;
  readonly opsetRaisedTo?: number;
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
  /** Neuron targets: the precision the artifact computes in (auto-cast.ts). */
  readonly precision?: CompiledPrecision;
  /** With `quantization`: what was stored int8 and how it was calibrated. */
  readonly quantized?: CompiledQuantization;
}

/** An int8 artifact's weights and activations, and the calibration that fixed their scales. */
export interface CompiledQuantization extends Quantization {
  readonly quantizedWeights: number;
  readonly quantizedActivations: number;
}

export async function compileModel(input: CompileModelInput): Promise<CompileModelResult> {
  const started = performance.now();
  const target = checkTarget(input.target);
  const autoCast = autoCastOf(target, input.compilerOptions);
  if (input.quantization !== undefined && autoCast !== undefined) {
    throw new CompilationFailedError(
      `int8 quantization for ${target}: expected a CPU or GPU target, as a Neuron target computes in the precision its compiler flags choose`,
      { target },
    );
  }
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
  // The source with its auto-cast written in, when there is one to write: the optimizer reads it.
  const castPath = `${outputModelPath}.cast-${process.pid}`;
  // Quantization's intermediates: the model with its BatchNormalizations folded, and the same with
  // every activation an output, for calibration.
  const foldedPath = `${outputModelPath}.folded-${process.pid}`;
  const calibrationPath = `${outputModelPath}.calibration-${process.pid}`;
  let cast: AutoCastResult | undefined;
  let quantized: CompiledQuantization | undefined;
  try {
    // The first sessions of this process may be these.
    disableOnnxRuntimeTelemetry();
    let optimizeFrom = sourceModelPath;
    if (autoCast !== undefined && autoCast.mode !== 'none') {
      cast = autoCastModel(await readSource(sourceModelPath), autoCast);
      await writeFile(castPath, cast.bytes);
      optimizeFrom = castPath;
    }
    if (input.quantization !== undefined) {
      await optimize(sourceModelPath, foldedPath, 'basic');
      const result = await quantizeModel(
        await readSource(foldedPath),
        calibrationPath,
        input.quantization,
        writeFile,
      );
      await writeFile(castPath, result.bytes);
      optimizeFrom = castPath;
      quantized = {
        ...input.quantization,
        quantizedWeights: result.quantizedWeights,
        quantizedActivations: result.quantizedActivations,
      };
    }
    await optimize(optimizeFrom, partialPath, 'all');
    await verifyArtifact(sourceModelPath, partialPath);
    await rename(partialPath, outputModelPath);
  } finally {
    await rm(partialPath, { force: true });
    await rm(castPath, { force: true });
    await rm(foldedPath, { force: true });
    await rm(calibrationPath, { force: true });
  }
  const outputBytes = (await stat(outputModelPath)).size;
  const hardware = LOCAL_COMPILER_TARGETS[target];
  const compiledFor = { platform: platform(), arch: arch(), cpu: cpus()[0]?.model.trim() ?? 'unknown CPU' };
  const matchesTargetArchitecture = hardware.kind === 'cpu' && hardware.arch === compiledFor.arch;
  const precision: CompiledPrecision | undefined =
    autoCast === undefined
      ? undefined
      : {
          ...autoCast,
          roundedWeights: cast?.roundedWeights ?? 0,
          castActivations: cast?.castActivations ?? 0,
          ...(cast?.opsetRaisedTo === undefined ? {} : { opsetRaisedTo: cast.opsetRaisedTo }),
        };

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
    notes: [
      ...compilationNotes(target, compiledFor),
      ...precisionNotes(target, precision),
      ...quantizationNotes(target, quantized),
    ],
    ...(precision === undefined ? {} : { precision }),
    ...(quantized === undefined ? {} : { quantized }),
  };
}

/** A Neuron target's precision, from its flags or its compiler's default; none for other targets. */
function autoCastOf(target: CompilationTarget, compilerOptions: string | undefined): AutoCast | undefined {
  if (compilerOptions === undefined) return isNeuronTarget(target) ? DEFAULT_AUTO_CAST[target] : undefined;
  const parsed = parseCompilerOptions(target, compilerOptions);
  if (!parsed.ok) {
    throw new CompilationFailedError(
      `Compiler options ${JSON.stringify(compilerOptions)} for ${target}: expected ${parsed.expected}`,
      { target },
    );
  }
  return parsed.autoCast;
}

async function readSource(sourceModelPath: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(sourceModelPath));
}

function precisionNotes(target: CompilationTarget, precision: CompiledPrecision | undefined): string[] {
  if (precision === undefined) return [];
  if (precision.mode === 'none') {
    return [
      `Compiled for ${target} without auto-casting: FP32 operators compute in FP32, as in the source model.`,
    ];
  }
  const operators =
    precision.mode === 'all' ? 'every FP32 operator' : 'the matrix-multiply operators (Conv, Gemm, MatMul)';
  const activations =
    precision.type === 'tf32'
      ? 'activations stay FP32 (ONNX has no TF32 type)'
      : `${precision.castActivations} activation tensor(s) pass through a Cast to ${precision.type}`;
  return [
    `Compiled for ${target} with ${operators} cast to ${precision.type}, as the Neuron compiler's auto-cast does: ` +
      `${precision.roundedWeights} weight tensor(s) rounded to ${precision.type}, ${activations}, FP32 accumulation; ` +
      'the answers carry that rounding, while the casts cost time on this CPU.',
  ];
}

function quantizationNotes(target: CompilationTarget, quantized: CompiledQuantization | undefined): string[] {
  if (quantized === undefined) return [];
  const [min, max] = quantized.calibrationRange;
  return [
    `Quantized to int8 for ${target}: ${quantized.quantizedWeights} weight tensor(s) int8, ` +
      `${quantized.quantizedActivations} activation tensor(s) uint8, their scales calibrated on ${quantized.calibrationSamples} ` +
      `input(s) drawn uniformly from [${min}, ${max}]; inputs outside that range are clipped.`,
  ];
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

async function optimize(
  sourceModelPath: string,
  optimizedModelFilePath: string,
  level: 'basic' | 'all',
): Promise<void> {
  let session: InferenceSession;
  try {
    session = await InferenceSession.create(sourceModelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: level,
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
