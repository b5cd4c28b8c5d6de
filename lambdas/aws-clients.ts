import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { priceListEndpointRegion } from './adapters/index.js';
import { tracer } from './step.js';

/**
 * SDK clients for the step Lambdas, built once at module scope by each entry (never per
 * invocation) and traced by X-Ray through the Powertools tracer. The region comes from the Lambda
 * runtime's AWS_REGION.
 */

/**
 * SageMaker's control plane throttles per account (`ThrottlingException` on Create*, Describe*,
 * List*); adaptive retry mode adds client-side rate limiting to the backoff, and five attempts ride
 * out short bursts before the error reaches the workflow's own Retry.
 */
export const SAGEMAKER_RETRY = { retryMode: 'adaptive', maxAttempts: 5 } as const;

export function createSageMakerClient(): SageMakerClient {
  return tracer.captureAWSv3Client(new SageMakerClient({ ...SAGEMAKER_RETRY }));
}

export function createS3Client(): S3Client {
  return tracer.captureAWSv3Client(new S3Client({}));
}

/**
 * The Recommend step reads each candidate's endpoint metrics with one GetMetricData call: a handful
 * of calls per run, far below CloudWatch's GetMetricData rate quota, so the SDK's standard retries
 * suffice; throttling that outlasts them reaches the workflow as TransientServiceError.
 */
export function createCloudWatchClient(): CloudWatchClient {
  return tracer.captureAWSv3Client(new CloudWatchClient({}));
}

/**
 * Application Auto Scaling for endpoint variants: a few calls per async run or janitor sweep, so
 * the SDK's standard retries suffice; throttling that outlasts them surfaces as TransientServiceError.
 */
export function createApplicationAutoScalingClient(): ApplicationAutoScalingClient {
  return tracer.captureAWSv3Client(new ApplicationAutoScalingClient({}));
}

/**
 * Service Quotas, read once per run at planning (two paginated listings at most): the SDK's
 * standard retries suffice, and a failure only skips the quota check (core/planning/instance-quotas.ts).
 */
export function createServiceQuotasClient(): ServiceQuotasClient {
  return tracer.captureAWSv3Client(new ServiceQuotasClient({}));
}

/**
 * EC2, for DescribeInstanceTypes once per plan (one or two pages): the SDK's standard retries,
 * then the planner's own retries, then the instance table (core/planning/instance-facts-source.ts).
 */
export function createEc2Client(): EC2Client {
  return tracer.captureAWSv3Client(new EC2Client({}));
}

/**
 * The Price List Query API, read at most once per region and day (the artifacts bucket keeps the
 * read): its client is built for the endpoint region that serves `servingRegion`'s prices, since
 * the API is not in every region (priceListEndpointRegion).
 */
export function createPricingClient(servingRegion: string): PricingClient {
  return tracer.captureAWSv3Client(new PricingClient({ region: priceListEndpointRegion(servingRegion) }));
}
