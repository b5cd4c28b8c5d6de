/**
 * The AWS services the project's adapters call: the SDK package, the Smithy model it is generated
 * from (aws/api-models-aws, https://github.com/aws/api-models-aws) and the API reference page of a
 * shape, which every constraint of the table cites.
 */
export interface ServiceInfo {
  /** The npm package whose commands the adapters import. */
  readonly sdkPackage: string;
  /** Smithy namespace, as both the model and the SDK's schemas spell it. */
  readonly namespace: string;
  /** Path of the model in aws/api-models-aws. */
  readonly modelPath: string;
  /** The API reference page of an operation or data type. */
  readonly page: (shapeName: string) => string;
}

export const SERVICES = {
  sagemaker: {
    sdkPackage: '@aws-sdk/client-sagemaker',
    namespace: 'com.amazonaws.sagemaker',
    modelPath: 'sagemaker/service/2017-07-24/sagemaker-2017-07-24.json',
    page: (name) => `https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_${name}.html`,
  },
  sagemakerRuntime: {
    sdkPackage: '@aws-sdk/client-sagemaker-runtime',
    namespace: 'com.amazonaws.sagemakerruntime',
    modelPath: 'sagemaker-runtime/service/2017-05-13/sagemaker-runtime-2017-05-13.json',
    page: (name) => `https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_${name}.html`,
  },
  s3: {
    sdkPackage: '@aws-sdk/client-s3',
    namespace: 'com.amazonaws.s3',
    modelPath: 's3/service/2006-03-01/s3-2006-03-01.json',
    page: (name) => `https://docs.aws.amazon.com/AmazonS3/latest/API/API_${name}.html`,
  },
  sfn: {
    sdkPackage: '@aws-sdk/client-sfn',
    namespace: 'com.amazonaws.sfn',
    modelPath: 'sfn/service/2016-11-23/sfn-2016-11-23.json',
    page: (name) => `https://docs.aws.amazon.com/step-functions/latest/apireference/API_${name}.html`,
  },
  dynamodb: {
    sdkPackage: '@aws-sdk/client-dynamodb',
    namespace: 'com.amazonaws.dynamodb',
    modelPath: 'dynamodb/service/2012-08-10/dynamodb-2012-08-10.json',
    page: (name) => `https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_${name}.html`,
  },
  applicationAutoScaling: {
    sdkPackage: '@aws-sdk/client-application-auto-scaling',
    namespace: 'com.amazonaws.applicationautoscaling',
    modelPath: 'application-auto-scaling/service/2016-02-06/application-auto-scaling-2016-02-06.json',
    page: (name) => `https://docs.aws.amazon.com/autoscaling/application/APIReference/API_${name}.html`,
  },
  cloudwatch: {
    sdkPackage: '@aws-sdk/client-cloudwatch',
    namespace: 'com.amazonaws.cloudwatch',
    modelPath: 'cloudwatch/service/2010-08-01/cloudwatch-2010-08-01.json',
    page: (name) => `https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_${name}.html`,
  },
  sns: {
    sdkPackage: '@aws-sdk/client-sns',
    namespace: 'com.amazonaws.sns',
    modelPath: 'sns/service/2010-03-31/sns-2010-03-31.json',
    page: (name) => `https://docs.aws.amazon.com/sns/latest/api/API_${name}.html`,
  },
  iam: {
    sdkPackage: '@aws-sdk/client-iam',
    namespace: 'com.amazonaws.iam',
    modelPath: 'iam/service/2010-05-08/iam-2010-05-08.json',
    page: (name) => `https://docs.aws.amazon.com/IAM/latest/APIReference/API_${name}.html`,
  },
  serviceQuotas: {
    sdkPackage: '@aws-sdk/client-service-quotas',
    namespace: 'com.amazonaws.servicequotas',
    modelPath: 'service-quotas/service/2019-06-24/service-quotas-2019-06-24.json',
    page: (name) => `https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_${name}.html`,
  },
  ec2: {
    sdkPackage: '@aws-sdk/client-ec2',
    namespace: 'com.amazonaws.ec2',
    modelPath: 'ec2/service/2016-11-15/ec2-2016-11-15.json',
    page: (name) => `https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_${name}.html`,
  },
  pricing: {
    sdkPackage: '@aws-sdk/client-pricing',
    namespace: 'com.amazonaws.pricing',
    modelPath: 'pricing/service/2017-10-15/pricing-2017-10-15.json',
    page: (name) =>
      `https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_${name}.html`,
  },
} as const satisfies Record<string, ServiceInfo>;

export type ServiceKey = keyof typeof SERVICES;

/**
 * `@aws-sdk/lib-dynamodb` wraps DynamoDB's commands: its `PutCommand` sends `PutItem` with the
 * item marshalled (lib-dynamodb README, "Commands").
 */
export const DOCUMENT_CLIENT_OPERATIONS: Readonly<Record<string, string>> = {
  PutCommand: 'PutItem',
  GetCommand: 'GetItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  ScanCommand: 'Scan',
  QueryCommand: 'Query',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactGetCommand: 'TransactGetItems',
  TransactWriteCommand: 'TransactWriteItems',
};
