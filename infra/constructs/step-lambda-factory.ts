import type { ArtifactPrefix } from './artifacts-store.js';
import type { ProjectFunction, ProjectFunctionProps } from './project-function.js';

export interface StepLambdaOptions extends Omit<ProjectFunctionProps, 'stepName' | 'entryDirectory'> {
  /** Prefixes of the artifacts bucket the step reads. @default - none */
  readonly readsArtifacts?: readonly ArtifactPrefix[];
  /** Prefixes of the artifacts bucket the step writes. @default - none */
  readonly writesArtifacts?: readonly ArtifactPrefix[];
}

/**
 * What creates the project's Lambdas (the stack does): constructs receive it as a prop instead of
 * importing the concrete stack, so `infra/constructs/` never points back up at `infra/stacks/`.
 */
export interface StepLambdaFactory {
  /**
   * The Lambda named `stepName` (a name of core/contracts/functions.ts): entry
   * `lambdas/<stepName>.ts`, `STEP_NAME` set to it, and only the artifact grants asked for.
   */
  createStepLambda(stepName: string, options?: StepLambdaOptions): ProjectFunction;
}

/** How one registered Lambda differs from the defaults, and the grants beyond its artifacts. */
export interface RegisteredLambdaSettings {
  /** Memory, timeout, environment and artifact access. @default - the ProjectFunction defaults, no artifacts */
  readonly lambda?: StepLambdaOptions;
  /** The grants of the actions the step calls, given once the Lambda exists. @default - none */
  readonly grant?: (fn: ProjectFunction) => void;
}

/**
 * One Lambda per entry of a workflow's registry (e.g. OPTIMIZATION_STEPS), created in the
 * registry's order and keyed as it is: `settings` is typed by the same keys, so a step without
 * settings, or settings of a step that is not registered, fails the type-check.
 */
export function createRegisteredLambdas<K extends string>(
  registry: Readonly<Record<K, string>>,
  settings: Readonly<Record<K, RegisteredLambdaSettings>>,
  create: (stepName: string, options: StepLambdaOptions) => ProjectFunction,
): Record<K, ProjectFunction> {
  const lambdas: Partial<Record<K, ProjectFunction>> = {};
  for (const key of Object.keys(registry) as K[]) {
    const { lambda = {}, grant } = settings[key];
    const fn = create(registry[key], lambda);
    grant?.(fn);
    lambdas[key] = fn;
  }
  // Every key of the registry was assigned above.
  return lambdas as Record<K, ProjectFunction>;
}
