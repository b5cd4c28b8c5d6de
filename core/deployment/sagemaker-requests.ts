import type { ModelSpec, ProductionVariantSpec } from '../ports/index.js';

/**
 * The SageMaker requests that create a candidate's model, endpoint config and endpoint, as the SDK
 * v3 commands take them (`CreateModelCommandInput`, …), without importing the SDK (the core imports
 * none). The SageMaker adapter sends exactly these, and the report shows them, so what the report
 * says to deploy is what the workflow deployed. Members from the SageMaker API Reference:
 * CreateModel (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModel.html),
 * CreateEndpointConfig and its ProductionVariant / ProductionVariantServerlessConfig
 * (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariant.html), and
 * CreateEndpoint (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpoint.html).
 */

export interface SageMakerTag {
  readonly Key: string;
  readonly Value: string;
}

export interface CreateModelRequest {
  readonly ModelName: string;
  readonly ExecutionRoleArn: string;
  readonly PrimaryContainer: {
    readonly Image: string;
    readonly ModelDataUrl?: string;
    readonly ModelDataSource?: {
      readonly S3DataSource: {
        readonly S3Uri: string;
        readonly S3DataType: 'S3Prefix';
        readonly CompressionType: 'None';
      };
    };
    readonly Environment: Readonly<Record<string, string>>;
  };
  readonly Tags?: readonly SageMakerTag[];
}

export interface ProductionVariantRequest {
  readonly VariantName: string;
  readonly ModelName: string;
  readonly InstanceType?: string;
  readonly InitialInstanceCount?: number;
  readonly ServerlessConfig?: { readonly MemorySizeInMB: number; readonly MaxConcurrency: number };
  readonly RoutingConfig?: { readonly RoutingStrategy: string };
}

export interface CreateEndpointConfigRequest {
  readonly EndpointConfigName: string;
  readonly ProductionVariants: readonly ProductionVariantRequest[];
  readonly Tags?: readonly SageMakerTag[];
}

export interface CreateEndpointRequest {
  readonly EndpointName: string;
  readonly EndpointConfigName: string;
  readonly Tags?: readonly SageMakerTag[];
}

/** The ports' `{ key: value }` tags as SageMaker's `[{ Key, Value }]`, in a stable order. */
export function sageMakerTags(tags: Readonly<Record<string, string>>): SageMakerTag[] {
  return Object.entries(tags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([Key, Value]) => ({ Key, Value }));
}

/** `Tags` only when there are some: the report's requests carry none (see report/deploy-requests.ts). */
function tagsMember(tags: Readonly<Record<string, string>>): { Tags?: SageMakerTag[] } {
  return Object.keys(tags).length === 0 ? {} : { Tags: sageMakerTags(tags) };
}

export function createModelRequest(spec: ModelSpec, executionRoleArn: string): CreateModelRequest {
  return {
    ModelName: spec.modelName,
    ExecutionRoleArn: executionRoleArn,
    PrimaryContainer: {
      Image: spec.image,
      // No ModelDataUrl for a Hub model: ContainerDefinition.ModelDataUrl is optional (SageMaker API
      // reference, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ContainerDefinition.html).
      ...(spec.modelDataUrl === undefined
        ? {}
        : modelData(spec.modelDataUrl, spec.modelDataUncompressed === true)),
      Environment: { ...spec.environment },
    },
    ...tagsMember(spec.tags),
  };
}

/**
 * A model.tar.gz goes in `ModelDataUrl`; an S3 prefix of uncompressed files (an optimization job's
 * output) in `ModelDataSource.S3DataSource` as `S3Prefix` with `CompressionType: None`, which SageMaker
 * copies as it is into /opt/ml/model (SageMaker API reference, S3ModelDataSource,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_S3ModelDataSource.html).
 */
function modelData(
  uri: string,
  uncompressed: boolean,
): Pick<CreateModelRequest['PrimaryContainer'], 'ModelDataUrl' | 'ModelDataSource'> {
  return uncompressed
    ? { ModelDataSource: { S3DataSource: { S3Uri: uri, S3DataType: 'S3Prefix', CompressionType: 'None' } } }
    : { ModelDataUrl: uri };
}

/**
 * A variant is either serverless (`ServerlessConfig` instead of an instance type and count: SageMaker
 * AI "Create an endpoint configuration" for serverless endpoints,
 * https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-create-config.html) or
 * instance-backed (`InstanceType` and `InitialInstanceCount`).
 */
export function productionVariantRequest(variant: ProductionVariantSpec): ProductionVariantRequest {
  const base = { VariantName: variant.variantName, ModelName: variant.modelName };
  if (variant.serverless !== undefined) {
    return {
      ...base,
      ServerlessConfig: {
        MemorySizeInMB: variant.serverless.memorySizeMb,
        MaxConcurrency: variant.serverless.maxConcurrency,
      },
    };
  }
  if (variant.instanceType === undefined) {
    throw new TypeError(
      `Production variant ${variant.variantName} of model ${variant.modelName}: got neither an instance ` +
        'type nor a serverless configuration, expected one of them',
    );
  }
  return {
    ...base,
    InstanceType: variant.instanceType,
    InitialInstanceCount: variant.initialInstanceCount ?? 1,
    // Absent: SageMaker routes at random (ProductionVariantRoutingConfig in the API reference).
    ...(variant.routingStrategy === undefined
      ? {}
      : { RoutingConfig: { RoutingStrategy: variant.routingStrategy } }),
  };
}

export function createEndpointConfigRequest(spec: {
  readonly endpointConfigName: string;
  readonly variant: ProductionVariantSpec;
  readonly tags: Readonly<Record<string, string>>;
}): CreateEndpointConfigRequest {
  return {
    EndpointConfigName: spec.endpointConfigName,
    ProductionVariants: [productionVariantRequest(spec.variant)],
    ...tagsMember(spec.tags),
  };
}

export function createEndpointRequest(spec: {
  readonly endpointName: string;
  readonly endpointConfigName: string;
  readonly tags: Readonly<Record<string, string>>;
}): CreateEndpointRequest {
  return {
    EndpointName: spec.endpointName,
    EndpointConfigName: spec.endpointConfigName,
    ...tagsMember(spec.tags),
  };
}
