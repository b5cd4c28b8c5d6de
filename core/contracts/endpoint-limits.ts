/**
 * How many instances one SageMaker endpoint variant can be given: the bounds a count sized for a
 * target (`sla.targetTps`) or asked for as an availability floor (`availability.minInstances`) is
 * held to before the run plans, recommends or proves it.
 */

/**
 * The largest instance count the APIs can carry at all. CreateEndpointConfig's
 * `ProductionVariant.InitialInstanceCount` (shape `InitialTaskCount`, range minimum 1 and no
 * maximum), UpdateEndpointWeightsAndCapacities' `DesiredInstanceCount` (`TaskCount`) and
 * Application Auto Scaling's RegisterScalableTarget `MaxCapacity` (`ResourceCapacity`) are all
 * Smithy `integer`s (SageMaker and Application Auto Scaling API models,
 * https://github.com/aws/api-models-aws, sagemaker-2017-07-24.json and
 * application-auto-scaling-2016-02-06.json), which Smithy defines as 32-bit signed integers
 * (https://smithy.io/2.0/spec/simple-types.html#integer). A count above it cannot even be sent;
 * the account's quota per instance type ("<type> for endpoint usage", read at planning on AWS) is
 * far lower and is the bound that applies wherever it is known.
 */
export const MAX_ENDPOINT_INSTANCE_COUNT = 2_147_483_647;

/**
 * The most instances one endpoint can have where the run measures, when no account quota says so:
 * locally, the local host's model-server budget. Recommend never sizes a count above it.
 */
export interface EndpointInstanceLimit {
  readonly instances: number;
  /** What sets it, as a phrase: "this machine's model-server budget (2 cores × 4 threads)". */
  readonly name: string;
  /** What to do about a target that needs more. */
  readonly fix: string;
}

/**
 * The name of SageMaker's per-type quota of endpoint instances, as Service Quotas lists it and as
 * CreateEndpoint's ResourceLimitExceeded names it ("The account-level service limit 'ml.g4dn.xlarge
 * for endpoint usage' is 0 Instances, …"; SageMaker AI endpoints and quotas,
 * https://docs.aws.amazon.com/general/latest/gr/sagemaker.html). Every endpoint of the account in
 * the region draws on it, so one endpoint can never have more instances of the type than it allows.
 */
export function endpointUsageQuotaName(instanceType: string): string {
  return `${instanceType} for endpoint usage`;
}
