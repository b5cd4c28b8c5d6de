import type { Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RESOURCE_NAME_PREFIX } from '../../handlers/contracts/names.js';
import { acknowledgeWildcardResource } from '../nag/acknowledge.js';
import type { ProjectFunction } from './project-function.js';

type SageMakerResource = 'model' | 'endpoint' | 'endpoint-config' | 'compilation-job';

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
    this.allowList(fn, [
      'sagemaker:ListEndpoints',
      'sagemaker:ListEndpointConfigs',
      'sagemaker:ListModels',
      'sagemaker:ListCompilationJobs',
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
    // DeregisterScalableTarget supports the scalable-target resource type (Service Authorization
    // Reference, Application Auto Scaling), but its ARN ends in an opaque id that Application Auto
    // Scaling assigns (`scalable-target/1234abcd...`), not the endpoint's name: this account and
    // Region's targets is the narrowest pattern there is.
    const scalableTargets = this.stack.formatArn({
      service: 'application-autoscaling',
      resource: 'scalable-target',
      resourceName: '*',
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['application-autoscaling:DeregisterScalableTarget'],
        resources: [scalableTargets],
      }),
    );
    acknowledgeWildcardResource(
      fn.serviceRole,
      scalableTargets,
      'Scalable target ARNs end in an id Application Auto Scaling assigns, not the endpoint name; ' +
        'the janitor only deregisters variants of the mso- endpoints it deletes',
    );
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
