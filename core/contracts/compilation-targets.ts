/**
 * The compilation targets a run input may name (`compilation.targets`, `candidates[].compiledFor`):
 * SageMaker Neo `TargetDevice` values (SageMaker API reference, OutputConfig,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html). The API lists
 * more; these are the ones the planner compiles for, so the input's schema offers exactly these.
 * The catalog holds what each means: the instance families it runs on (instance-facts.ts), and what
 * Neo compiles for it (neo-support.ts), whose tests check it describes every one.
 */
export const COMPILATION_TARGETS: readonly string[] = [
  'ml_m5',
  'ml_c5',
  'ml_c6g',
  'ml_m6g',
  'ml_g4dn',
  'ml_p3',
  'ml_inf1',
  'ml_inf2',
];
