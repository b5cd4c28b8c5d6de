import { sageMakerTags, type SageMakerTag } from './sagemaker-requests.js';
import type { ComponentEndpointConfigSpec, InferenceComponentSpec } from './inference-component-host.js';

/**
 * The SageMaker requests of an endpoint that hosts inference components, as the SDK v3 commands take
 * them, without importing the SDK (the core imports none). Members from the SageMaker API reference:
 * CreateEndpointConfig (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html),
 * ProductionVariant and ProductionVariantManagedInstanceScaling
 * (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantManagedInstanceScaling.html),
 * CreateInferenceComponent (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateInferenceComponent.html).
 */

export interface ComponentVariantRequest {
  readonly VariantName: string;
  readonly InstanceType: string;
  readonly InitialInstanceCount: number;
  readonly ManagedInstanceScaling?: {
    readonly Status: 'ENABLED';
    readonly MinInstanceCount: number;
    readonly MaxInstanceCount: number;
  };
  readonly RoutingConfig?: { readonly RoutingStrategy: string };
}

export interface CreateComponentEndpointConfigRequest {
  readonly EndpointConfigName: string;
  readonly ExecutionRoleArn: string;
  readonly ProductionVariants: readonly ComponentVariantRequest[];
  readonly Tags?: readonly SageMakerTag[];
}

export interface CreateInferenceComponentRequest {
  readonly InferenceComponentName: string;
  readonly EndpointName: string;
  readonly VariantName: string;
  readonly Specification: {
    readonly ModelName: string;
    readonly ComputeResourceRequirements: {
      readonly NumberOfCpuCoresRequired?: number;
      readonly NumberOfAcceleratorDevicesRequired?: number;
      readonly MinMemoryRequiredInMb: number;
      readonly MaxMemoryRequiredInMb?: number;
    };
  };
  readonly RuntimeConfig: { readonly CopyCount: number };
  readonly Tags?: readonly SageMakerTag[];
}

function tagsMember(tags: Readonly<Record<string, string>>): { Tags?: SageMakerTag[] } {
  return Object.keys(tags).length === 0 ? {} : { Tags: sageMakerTags(tags) };
}

/**
 * The variant names instances and no `ModelName`: the models come with the components. The
 * execution role is the config's, since no model carries one for the components.
 */
export function createComponentEndpointConfigRequest(
  spec: ComponentEndpointConfigSpec,
  executionRoleArn: string,
): CreateComponentEndpointConfigRequest {
  const scaling = spec.managedInstanceScaling;
  if (scaling !== undefined && scaling.minInstanceCount > scaling.maxInstanceCount) {
    throw new TypeError(
      `Endpoint config ${spec.endpointConfigName}: got managed instance scaling from ` +
        `${scaling.minInstanceCount} to ${scaling.maxInstanceCount} instances, expected a minimum no larger than the maximum`,
    );
  }
  const variant: ComponentVariantRequest = {
    VariantName: spec.variantName,
    InstanceType: spec.instanceType,
    InitialInstanceCount: spec.initialInstanceCount,
    ...(scaling === undefined
      ? {}
      : {
          ManagedInstanceScaling: {
            Status: 'ENABLED',
            MinInstanceCount: scaling.minInstanceCount,
            MaxInstanceCount: scaling.maxInstanceCount,
          },
        }),
    ...(spec.routingStrategy === undefined
      ? {}
      : { RoutingConfig: { RoutingStrategy: spec.routingStrategy } }),
  };
  return {
    EndpointConfigName: spec.endpointConfigName,
    ExecutionRoleArn: executionRoleArn,
    ProductionVariants: [variant],
    ...tagsMember(spec.tags),
  };
}

/** The component's model, what each copy reserves, and its copies over all the variant's instances. */
export function createInferenceComponentRequest(
  spec: InferenceComponentSpec,
): CreateInferenceComponentRequest {
  const { perCopy } = spec;
  return {
    InferenceComponentName: spec.inferenceComponentName,
    EndpointName: spec.endpointName,
    VariantName: spec.variantName,
    Specification: {
      ModelName: spec.modelName,
      ComputeResourceRequirements: {
        ...(perCopy.cpuCores === undefined ? {} : { NumberOfCpuCoresRequired: perCopy.cpuCores }),
        ...(perCopy.acceleratorDevices === undefined
          ? {}
          : { NumberOfAcceleratorDevicesRequired: perCopy.acceleratorDevices }),
        MinMemoryRequiredInMb: perCopy.minMemoryMb,
        ...(perCopy.maxMemoryMb === undefined ? {} : { MaxMemoryRequiredInMb: perCopy.maxMemoryMb }),
      },
    },
    RuntimeConfig: { CopyCount: spec.copyCount },
    ...tagsMember(spec.tags),
  };
}
