/**
 * What the local compiler knows about each SageMaker Neo / Neuron target: the hardware a real
 * compilation would produce code for. Locally every target is compiled for this machine's CPU; the
 * table lets the result say honestly how far that is from the real target.
 * Target names are SageMaker `TargetDevice` values
 * (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html).
 */

export type TargetHardware =
  | { readonly kind: 'cpu'; readonly arch: 'x64' | 'arm64'; readonly description: string }
  | { readonly kind: 'gpu' | 'neuron'; readonly description: string };

export const LOCAL_COMPILER_TARGETS = {
  ml_c4: { kind: 'cpu', arch: 'x64', description: 'Intel Xeon (Haswell) CPU of ml.c4' },
  ml_c5: { kind: 'cpu', arch: 'x64', description: 'Intel Xeon (Skylake/Cascade Lake) CPU of ml.c5' },
  ml_m4: { kind: 'cpu', arch: 'x64', description: 'Intel Xeon (Broadwell/Haswell) CPU of ml.m4' },
  ml_m5: { kind: 'cpu', arch: 'x64', description: 'Intel Xeon (Skylake/Cascade Lake) CPU of ml.m5' },
  ml_t2: { kind: 'cpu', arch: 'x64', description: 'Intel Xeon CPU of ml.t2' },
  ml_c6g: { kind: 'cpu', arch: 'arm64', description: 'AWS Graviton2 (arm64) CPU of ml.c6g' },
  ml_m6g: { kind: 'cpu', arch: 'arm64', description: 'AWS Graviton2 (arm64) CPU of ml.m6g' },
  ml_g4dn: { kind: 'gpu', description: 'NVIDIA T4 GPU of ml.g4dn' },
  ml_g5: { kind: 'gpu', description: 'NVIDIA A10G GPU of ml.g5' },
  ml_p3: { kind: 'gpu', description: 'NVIDIA V100 GPU of ml.p3' },
  ml_inf1: { kind: 'neuron', description: 'AWS Inferentia (Neuron) accelerator of ml.inf1' },
  ml_inf2: { kind: 'neuron', description: 'AWS Inferentia2 (Neuron) accelerator of ml.inf2' },
} as const satisfies Record<string, TargetHardware>;

export type CompilationTarget = keyof typeof LOCAL_COMPILER_TARGETS;

export function isCompilationTarget(value: string): value is CompilationTarget {
  return Object.hasOwn(LOCAL_COMPILER_TARGETS, value);
}
