import { ArnFormat, type Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RESOURCE_NAME_PREFIX } from '../../core/contracts/index.js';
import { acknowledgeWildcardResource } from '../nag/index.js';
import type { ProjectFunction } from './project-function.js';

type SageMakerResource =
  'model' | 'endpoint' | 'endpoint-config' | 'inference-component' | 'compilation-job' | 'optimization-job';

/**
 * The SageMaker and Application Auto Scaling permissions of the Lambdas that delete a run's
 * resources (the workflow's clean-up step, the failed-run clean-up, the janitor): one definition, so
 * they cannot drift apart. Mutations are scoped to the `mso-` name prefix; each wildcard carries its
 * cdk-nag acknowledgment.
 */
/** What deleting an endpoint with its config and model takes (describe first: busy endpoints wait). */
export const DELETE_HOSTED_ACTIONS = [
  'sagemaker:DescribeEndpoint',
  'sagemaker:DescribeEndpointConfig',
  'sagemaker:DeleteEndpoint',
  'sagemaker:DeleteEndpointConfig',
  'sagemaker:DeleteModel',
] as const;

/**
 * The actions Application Auto Scaling calls with the caller's own rights to validate a
 * RegisterScalableTarget or PutScalingPolicy on a SageMaker variant (see allowScalingPermissionChecks).
 */
export const SCALING_PERMISSION_CHECK_ACTIONS = [
  'cloudwatch:PutMetricAlarm',
  'cloudwatch:DescribeAlarms',
  'cloudwatch:DeleteAlarms',
  'sagemaker:DescribeEndpoint',
  'sagemaker:DescribeEndpointConfig',
  'sagemaker:UpdateEndpointWeightsAndCapacities',
] as const;

/**
 * What a load worker's requests are authorized as: buffered answers (`InvokeEndpoint`) and streamed
 * ones (`InvokeEndpointWithResponseStream`). The runtime API reference says the streaming call needs
 * `sagemaker:InvokeEndpoint`, but the Service Authorization Reference lists
 * `sagemaker:InvokeEndpointWithResponseStream` as an action of its own
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemakerai.html),
 * and the policy AWS documents for JumpStart models used from Amazon Bedrock grants both (SageMaker
 * Developer Guide, "Use your SageMaker JumpStart Models in Amazon Bedrock", statement
 * BedrockEndpointInvokingOperations).
 * With only the first, every streamed request of an LMI, TGI or vLLM plan could be denied and the run
 * would end with no recommendation: both are granted, on the same endpoints.
 */
export const INVOKE_ENDPOINT_ACTIONS = [
  'sagemaker:InvokeEndpoint',
  'sagemaker:InvokeEndpointWithResponseStream',
] as const;

export class SageMakerGrants {
  constructor(private readonly stack: Stack) {}

  /** What `cleanUpRun` over the SageMaker adapters calls (workflow clean-up, failed-run clean-up). */
  allowCleanUp(fn: ProjectFunction): void {
    this.allowOwned(fn, [...DELETE_HOSTED_ACTIONS], ['endpoint', 'endpoint-config', 'model']);
    this.allowOwned(
      fn,
      // AddTags: the run's clean-up tags the endpoint it keeps (`keep-recommended`) for the janitor.
      [
        'sagemaker:DescribeCompilationJob',
        'sagemaker:StopCompilationJob',
        'sagemaker:ListTags',
        'sagemaker:AddTags',
      ],
      ['compilation-job', 'endpoint', 'endpoint-config', 'model'],
    );
    // Optimization jobs still running are stopped: they bill the instance they run on.
    this.allowOwned(
      fn,
      ['sagemaker:DescribeOptimizationJob', 'sagemaker:StopOptimizationJob'],
      ['optimization-job'],
    );
    this.allowList(fn, [
      'sagemaker:ListEndpoints',
      'sagemaker:ListEndpointConfigs',
      'sagemaker:ListModels',
      'sagemaker:ListCompilationJobs',
      'sagemaker:ListOptimizationJobs',
    ]);
  }

  /** What `sweepStaleResources` over the SageMaker and Application Auto Scaling adapters calls. */
  allowSweep(fn: ProjectFunction): void {
    this.allowList(fn, ['sagemaker:ListEndpoints', 'sagemaker:ListEndpointConfigs', 'sagemaker:ListModels']);
    this.allowOwned(
      fn,
      ['sagemaker:ListTags', ...DELETE_HOSTED_ACTIONS],
      ['endpoint', 'endpoint-config', 'model'],
    );
    this.allowDeregisterScaling(fn);
  }

  /**
   * DescribeEndpoint and DescribeEndpointConfig on any endpoint: the async workflow may reuse an
   * endpoint the project did not create, whatever its name.
   */
  allowDescribeAnyEndpoint(fn: ProjectFunction): void {
    const resources = [
      this.stack.formatArn({ service: 'sagemaker', resource: 'endpoint', resourceName: '*' }),
      this.stack.formatArn({ service: 'sagemaker', resource: 'endpoint-config', resourceName: '*' }),
    ];
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sagemaker:DescribeEndpoint', 'sagemaker:DescribeEndpointConfig'],
        resources,
      }),
    );
    for (const resource of resources) {
      acknowledgeWildcardResource(
        fn.serviceRole,
        resource,
        'Describe only: a reused async endpoint may have any name the user chose',
      );
    }
  }

  /** CreateModel, CreateEndpointConfig and CreateEndpoint with their tags, on `mso-` names. */
  allowCreateEndpoint(fn: ProjectFunction): void {
    this.allowOwned(
      fn,
      [
        'sagemaker:CreateModel',
        'sagemaker:CreateEndpointConfig',
        'sagemaker:CreateEndpoint',
        'sagemaker:AddTags',
      ],
      ['model', 'endpoint-config', 'endpoint'],
    );
  }

  /**
   * Creating an endpoint's inference components and waiting on them. The Service Authorization
   * Reference lists CreateInferenceComponent on two resource types, the component and the endpoint
   * that hosts it (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemakerai.html);
   * the component's tags need AddTags on it (tag-on-create). The endpoint config, endpoint and model
   * come with allowCreateEndpoint, the execution role the config names with iam:PassRole.
   */
  allowCreateComponents(fn: ProjectFunction): void {
    this.allowOwned(fn, ['sagemaker:CreateInferenceComponent'], ['inference-component', 'endpoint']);
    this.allowOwned(
      fn,
      ['sagemaker:AddTags', 'sagemaker:DescribeInferenceComponent'],
      ['inference-component'],
    );
  }

  /**
   * Deleting an endpoint's inference components before the endpoint: listed by endpoint
   * (ListInferenceComponents supports no resource-level permissions), described, deleted.
   */
  allowDeleteComponents(fn: ProjectFunction): void {
    this.allowOwned(
      fn,
      ['sagemaker:DescribeInferenceComponent', 'sagemaker:DeleteInferenceComponent'],
      ['inference-component'],
    );
    this.allowList(fn, ['sagemaker:ListInferenceComponents']);
  }

  /** InvokeEndpointAsync on any endpoint: a reused endpoint may have any name. */
  allowInvokeAsync(fn: ProjectFunction): void {
    const endpoints = this.stack.formatArn({ service: 'sagemaker', resource: 'endpoint', resourceName: '*' });
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sagemaker:InvokeEndpointAsync'],
        resources: [endpoints],
      }),
    );
    acknowledgeWildcardResource(
      fn.serviceRole,
      endpoints,
      'Invoke only: a reused async endpoint may have any name the user chose',
    );
  }

  /**
   * Autoscaling of an endpoint the run deployed: the scalable target and its policies (an async
   * endpoint's two, with the step-scaling alarm on HasBacklogWithoutCapacity named after the `mso-`
   * endpoint; the ramp endpoint's target tracking on InvocationsPerInstance).
   * RegisterScalableTarget creates Application Auto Scaling's service-linked role for SageMaker
   * the first time (Application Auto Scaling user guide, "Service-linked roles").
   */
  allowApplyScaling(fn: ProjectFunction): void {
    const scalableTargets = this.scalableTargets();
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [
          'application-autoscaling:RegisterScalableTarget',
          'application-autoscaling:PutScalingPolicy',
        ],
        resources: [scalableTargets],
      }),
    );
    this.acknowledgeScalableTargets(fn, scalableTargets);
    this.allowScalingPermissionChecks(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['iam:CreateServiceLinkedRole'],
        resources: [
          this.stack.formatArn({
            service: 'iam',
            region: '',
            resource: 'role',
            resourceName:
              'aws-service-role/sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint',
          }),
        ],
        conditions: {
          StringLike: { 'iam:AWSServiceName': 'sagemaker.application-autoscaling.amazonaws.com' },
        },
      }),
    );
  }

  /**
   * What Application Auto Scaling checks with the caller's own rights before RegisterScalableTarget
   * or PutScalingPolicy proceeds (Application Auto Scaling user guide, "Permissions validation for
   * API calls on target resources"): it calls `cloudwatch:PutMetricAlarm` and
   * `cloudwatch:DeleteAlarms` with no parameters and `cloudwatch:DescribeAlarms` with MaxRecords=1,
   * so no alarm name is in the request and a grant scoped to `alarm:mso-*` is refused (the call is
   * authorized against no project alarm), failing the request with a ValidationException. The same
   * guide ("Identity-based policy examples", SageMaker endpoints) and the SageMaker developer guide
   * ("Auto scaling prerequisites") give the minimum for SageMaker targets as these six actions on
   * `*`; how the SageMaker checks name their resource is not documented, so they get `*` too.
   * `*` also covers the Lambda's own PutMetricAlarm on the `mso-` step-scaling alarm.
   */
  private allowScalingPermissionChecks(fn: ProjectFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [...SCALING_PERMISSION_CHECK_ACTIONS],
        resources: ['*'],
      }),
    );
    acknowledgeWildcardResource(
      fn.serviceRole,
      '*',
      'Application Auto Scaling validates the caller with PutMetricAlarm/DeleteAlarms without parameters, ' +
        'DescribeAlarms with MaxRecords=1 and the SageMaker describe/update calls; AWS documents them on *',
    );
  }

  /**
   * Deregistering a variant's scalable target (which deletes its policies and their alarms) and
   * deleting the step-scaling alarm made for it.
   */
  allowDeregisterScaling(fn: ProjectFunction): void {
    const scalableTargets = this.scalableTargets();
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['application-autoscaling:DeregisterScalableTarget'],
        resources: [scalableTargets],
      }),
    );
    this.acknowledgeScalableTargets(fn, scalableTargets);
    this.allowOwnedAlarms(fn, ['cloudwatch:DescribeAlarms', 'cloudwatch:DeleteAlarms']);
  }

  /**
   * What "Record ramp" reads: a variant's scaling activities. DescribeScalingActivities supports no
   * resource-level permissions (Service Authorization Reference, "Actions defined by Application
   * Auto Scaling").
   */
  allowReadScalingActivities(fn: ProjectFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['application-autoscaling:DescribeScalingActivities'],
        resources: ['*'],
      }),
    );
    acknowledgeWildcardResource(
      fn.serviceRole,
      '*',
      'DescribeScalingActivities supports no resource-level permissions; read-only',
    );
  }

  /**
   * What the async summary reads: scaling activities and the endpoint's queue metrics. Neither
   * DescribeScalingActivities nor GetMetricData supports resource-level permissions (Service
   * Authorization Reference).
   */
  allowObserveAsync(fn: ProjectFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['application-autoscaling:DescribeScalingActivities', 'cloudwatch:GetMetricData'],
        resources: ['*'],
      }),
    );
    acknowledgeWildcardResource(
      fn.serviceRole,
      '*',
      'DescribeScalingActivities and GetMetricData support no resource-level permissions; read-only',
    );
  }

  /**
   * Scalable targets support resource-level permissions (Service Authorization Reference,
   * Application Auto Scaling), but their ARNs end in an opaque id that Application Auto Scaling
   * assigns (`scalable-target/1234abcd...`), not the endpoint's name: this account and Region's
   * targets is the narrowest pattern there is.
   */
  private scalableTargets(): string {
    return this.stack.formatArn({
      service: 'application-autoscaling',
      resource: 'scalable-target',
      resourceName: '*',
    });
  }

  private acknowledgeScalableTargets(fn: ProjectFunction, scalableTargets: string): void {
    acknowledgeWildcardResource(
      fn.serviceRole,
      scalableTargets,
      'Scalable target ARNs end in an id Application Auto Scaling assigns, not the endpoint name; ' +
        'only variants of the mso- endpoints the project creates are registered or deregistered',
    );
  }

  /**
   * The alarms of the project's endpoints: the step-scaling alarm named after its mso- endpoint
   * (lambdas/adapters/application-autoscaling-registry.ts), which clean-up deletes itself, and those
   * Application Auto Scaling creates for a target-tracking policy, `TargetTracking-endpoint/
   * <endpoint>/variant/<variant>-AlarmHigh-<id>`. Only for calls that name these alarms: the
   * permission checks of RegisterScalableTarget and PutScalingPolicy name none and need `*`
   * (allowScalingPermissionChecks). The user guide documents those checks for registering a target,
   * not for DeregisterScalableTarget, whose target-tracking alarms Application Auto Scaling deletes
   * with its service-linked role.
   */
  private allowOwnedAlarms(fn: ProjectFunction, actions: string[]): void {
    const alarms = [RESOURCE_NAME_PREFIX, `TargetTracking-endpoint/${RESOURCE_NAME_PREFIX}`].map((prefix) =>
      this.stack.formatArn({
        service: 'cloudwatch',
        resource: 'alarm',
        resourceName: `${prefix}*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources: alarms }));
    for (const alarm of alarms) {
      acknowledgeWildcardResource(
        fn.serviceRole,
        alarm,
        'Scoped to the alarms of the project’s endpoints: each alarm name holds its mso- endpoint name',
      );
    }
  }

  private allowOwned(fn: ProjectFunction, actions: string[], kinds: SageMakerResource[]): void {
    const resources = kinds.map((resource) =>
      this.stack.formatArn({ service: 'sagemaker', resource, resourceName: `${RESOURCE_NAME_PREFIX}*` }),
    );
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources }));
    for (const resource of resources) {
      acknowledgeWildcardResource(
        fn.serviceRole,
        resource,
        'Scoped to the resources the project creates: every name starts with the run prefix mso-',
      );
    }
  }

  // SageMaker's List* actions support no resource-level permissions (Service Authorization Reference).
  private allowList(fn: ProjectFunction, actions: string[]): void {
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources: ['*'] }));
    acknowledgeWildcardResource(
      fn.serviceRole,
      '*',
      'SageMaker List* actions support no resource-level permissions; results are filtered by the mso- prefix',
    );
  }
}
