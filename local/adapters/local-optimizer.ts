/**
 * The local stand-in for SageMaker optimization jobs: CreateOptimizationJob runs the local
 * compiler's ONNX Runtime offline optimization of the run's (generative) model, as it does for a Neo
 * target (local-compiler.ts), and the job reports SageMaker's optimization statuses, the optimized
 * model.tar.gz under the job's output URI, and the project's model server as the recommended image.
 * Quantization, compilation and sharding all come down to that one optimization here: the note says
 * so, and the report shows it.
 */
import {
  CompilationStatuses,
  type Logger,
  type ModelOptimizer,
  type ObjectStore,
  type OptimizationJobDescription,
  type OptimizationJobSpec,
} from '../../core/ports/index.js';
import { LOCAL_IMAGE } from '../platform/index.js';
import type { CompileModelInput, CompileModelResult } from '../compiler/index.js';
import { isCompilationTarget } from '../compiler/index.js';
import { LocalCompiler } from './local-compiler.js';

export interface LocalOptimizerOptions {
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** @default compileModel (ONNX Runtime offline optimization) */
  readonly compile?: (input: CompileModelInput) => Promise<CompileModelResult>;
}

/**
 * The local compiler's target for an instance type: its family's (`ml.inf2.xlarge` → `ml_inf2`)
 * when the local compiler knows it, else the GPU of ml.g5, so the note names an accelerator.
 */
export function localTargetOf(instanceType: string): string {
  const family = /^ml\.([a-z0-9-]+)\./.exec(instanceType)?.[1];
  const target = `ml_${family ?? ''}`;
  return isCompilationTarget(target) ? target : 'ml_g5';
}

export class LocalOptimizer implements ModelOptimizer {
  /** The jobs run on their own compiler: its job names are this optimizer's, never Neo's. */
  private readonly compiler: LocalCompiler;
  private readonly techniques = new Map<string, readonly string[]>();

  constructor(options: LocalOptimizerOptions) {
    this.compiler = new LocalCompiler(options);
  }

  async createOptimizationJob(spec: OptimizationJobSpec): Promise<void> {
    this.techniques.set(
      spec.jobName,
      Object.entries(spec.techniques)
        .filter(([, technique]) => technique !== undefined)
        .map(([name]) => name),
    );
    await this.compiler.createCompilationJob({
      jobName: spec.jobName,
      modelDataUrl: spec.modelDataUrl,
      framework: spec.framework,
      target: localTargetOf(spec.deploymentInstanceType),
      outputUri: spec.outputUri,
      maxRuntimeSeconds: spec.maxRuntimeSeconds,
      tags: spec.tags,
    });
  }

  async describeOptimizationJob(jobName: string): Promise<OptimizationJobDescription | undefined> {
    const job = await this.compiler.describeCompilationJob(jobName);
    if (job === undefined) return undefined;
    const techniques = this.techniques.get(jobName) ?? [];
    return {
      jobName,
      // The two status enums hold the same six values (ports.ts).
      status: job.status,
      ...(job.failureReason === undefined
        ? {}
        : {
            // The compiler stands in for the job: its stop is StopOptimizationJob's.
            failureReason:
              job.status === CompilationStatuses.stopped
                ? 'Stopped by StopOptimizationJob'
                : job.failureReason,
          }),
      ...(job.status === CompilationStatuses.completed && job.artifactUri !== undefined
        ? {
            modelData: { uri: job.artifactUri, compressed: true },
            recommendedImage: LOCAL_IMAGE,
            note:
              `Optimized locally with ONNX Runtime offline graph optimization for this machine's CPU, standing in ` +
              `for ${techniques.join(' + ') || 'the job'}` +
              (job.note === undefined ? '' : `. ${job.note}`),
          }
        : {}),
    };
  }

  stopOptimizationJob(jobName: string): Promise<void> {
    return this.compiler.stopCompilationJob(jobName);
  }

  jobNames(): readonly string[] {
    return this.compiler.jobNames();
  }

  /** Resolves once no optimization is running (for a clean exit). */
  drain(): Promise<void> {
    return this.compiler.drain();
  }
}
