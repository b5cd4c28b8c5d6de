import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../nag/index.js';
import type { ArtifactsStore } from './artifacts-store.js';
import { ArtifactPrefix } from './artifacts-store.js';
import { SAGEMAKER_READ_PREFIXES } from '../../core/contracts/index.js';

/** SageMaker writes endpoint, compilation-job and training logs under this prefix. */
const SAGEMAKER_LOG_GROUP_PREFIX = '/aws/sagemaker/';

export interface SageMakerExecutionRoleProps {
  readonly artifacts: ArtifactsStore;
}

/**
 * The role SageMaker assumes for the models, endpoints and Neo compilation jobs of a run, with the
 * permissions the SageMaker developer guide lists for the CreateModel and CreateCompilationJob
 * APIs (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html), scoped down:
 * read `models/` and `runs/`, write `runs/` only, logs only under `/aws/sagemaker/`, metrics only
 * in SageMaker namespaces. No AmazonSageMakerFullAccess.
 */
export class SageMakerExecutionRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SageMakerExecutionRoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Any ECR repository: SageMaker's prebuilt inference and Neo images live in AWS-owned accounts
    // that differ per region (https://docs.aws.amazon.com/sagemaker/latest/dg-ecr-paths/sagemaker-algo-docker-registry-paths.html).
    const anyEcrRepository = `arn:${stack.partition}:ecr:*:*:repository/*`;

    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('sagemaker.amazonaws.com'),
      description: 'Assumed by SageMaker for the models, endpoints and compilation jobs of optimization runs',
    });

    // Every workflow's input prefixes: the models, inputs and payloads runs name, as their first
    // states check them (RUN_INPUT_PREFIXES), and the run's own objects under runs/.
    props.artifacts.grantRead(this.role, ...SAGEMAKER_READ_PREFIXES);
    // Neo writes compiled models (and async inference its outputs) under runs/<runId>/.
    props.artifacts.grantWrite(this.role, ArtifactPrefix.runs);

    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchCheckLayerAvailability'],
        resources: [anyEcrRepository],
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['ecr:GetAuthorizationToken'],
        resources: ['*'],
      }),
    );

    const sagemakerLogGroups = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `${SAGEMAKER_LOG_GROUP_PREFIX}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.role.addToPolicy(
      new PolicyStatement({
        actions: [
          'logs:CreateLogGroup',
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          'logs:DescribeLogStreams',
        ],
        resources: [sagemakerLogGroups],
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        // Containers publish under /aws/sagemaker/…; AWS/… namespaces are reserved for AWS itself.
        conditions: { StringLike: { 'cloudwatch:namespace': '/aws/sagemaker/*' } },
      }),
    );

    acknowledgeWildcardResource(
      this.role,
      anyEcrRepository,
      'SageMaker pulls its prebuilt inference and Neo images from AWS-owned ECR accounts that vary by ' +
        'region and framework; image pulls are read-only.',
    );
    acknowledgeWildcardResource(
      this.role,
      '*',
      'ecr:GetAuthorizationToken and cloudwatch:PutMetricData support no resource-level permissions; ' +
        'PutMetricData is limited to SageMaker namespaces by the cloudwatch:namespace condition.',
    );
    acknowledgeWildcardResource(
      this.role,
      sagemakerLogGroups,
      'SageMaker names its log groups and streams per endpoint and job at run time; the grant is ' +
        'limited to the /aws/sagemaker/ prefix of this account and region.',
    );
  }
}
