import type { InferenceComponentStatus, PerCopyRequirements, RoutingStrategy } from '../contracts/index.js';

/**
 * The port of an endpoint that hosts inference components: AWS's adapter is
 * lambdas/adapters/sagemaker-component-host.ts. Such an endpoint is created from an endpoint config
 * whose variant names instances but no model (`ProductionVariant.ModelName` is optional; an endpoint
 * whose variant serves a model refuses components: "Inference Components are not supported in this
 * Endpoint", as reported in pulumi/pulumi-aws#4940), with the role SageMaker assumes for the
 * components (CreateEndpointConfig `ExecutionRoleArn`, which the caller passes with `iam:PassRole`;
 * SageMaker API reference, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html).
 * The model comes with each component. The endpoint itself is created, described and deleted
 * through `ModelHost`, after its components are gone (SageMaker developer guide, "Delete Endpoints
 * and Resources": inference components are deleted first,
 * https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-delete-resources.html).
 *
 * Creates are idempotent (a retried step finds its resource and goes on); deletes of a missing
 * resource return `false`; quota errors surface as `QuotaExceededError`, throttling as
 * `TransientServiceError`.
 */
export interface InferenceComponentHost {
  createComponentEndpointConfig(spec: ComponentEndpointConfigSpec): Promise<void>;
  createInferenceComponent(spec: InferenceComponentSpec): Promise<void>;
  /** `undefined` when no component has that name (never created, or deleted). */
  describeInferenceComponent(name: string): Promise<InferenceComponentDescription | undefined>;
  deleteInferenceComponent(name: string): Promise<boolean>;
  /** Every component the endpoint hosts, whatever its status (ListInferenceComponents, paginated). */
  listEndpointComponents(endpointName: string): Promise<readonly InferenceComponentSummary[]>;
}

export interface ComponentEndpointConfigSpec {
  readonly endpointConfigName: string;
  readonly variantName: string;
  readonly instanceType: string;
  readonly initialInstanceCount: number;
  /**
   * `ManagedInstanceScaling`: SageMaker adds or removes instances between these bounds as the
   * components' copies need them. Absent: the variant keeps `initialInstanceCount`.
   */
  readonly managedInstanceScaling?: { readonly minInstanceCount: number; readonly maxInstanceCount: number };
  /** `RoutingConfig.RoutingStrategy`. @default RANDOM (SageMaker's) */
  readonly routingStrategy?: RoutingStrategy;
  readonly tags: Readonly<Record<string, string>>;
}

export interface InferenceComponentSpec {
  readonly inferenceComponentName: string;
  readonly endpointName: string;
  readonly variantName: string;
  /** An existing SageMaker model (`Specification.ModelName`). */
  readonly modelName: string;
  readonly perCopy: PerCopyRequirements;
  /** `RuntimeConfig.CopyCount`: copies over all the variant's instances. */
  readonly copyCount: number;
  readonly tags: Readonly<Record<string, string>>;
}

export interface InferenceComponentSummary {
  readonly name: string;
  readonly endpointName: string;
  /** Absent when SageMaker's listing leaves it out (the member is optional in the API). */
  readonly status?: InferenceComponentStatus;
}

export interface InferenceComponentDescription extends InferenceComponentSummary {
  readonly status: InferenceComponentStatus;
  /** SageMaker's `FailureReason` when the status is `Failed`. */
  readonly failureReason?: string;
  readonly desiredCopyCount?: number;
  readonly currentCopyCount?: number;
}
