import { StepVariables } from '../../lambdas/config.js';
import { Duration, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { RESOURCE_NAME_PREFIX } from '../../handlers/contracts/names.js';
import type { OptimizationSteps } from '../../workflows/optimization-workflow.js';
import { LOAD_WORKER_TIMEOUT } from '../../workflows/optimization-workflow.js';
import { ArtifactPrefix } from './artifacts-store.js';
import type { ProjectFunction } from './project-function.js';
import { DELETE_HOSTED_ACTIONS, SageMakerGrants } from './sagemaker-grants.js';
import { acknowledgeWildcardResource } from '../nag/acknowledge.js';
import type { ServingOptimizerStack, StepLambdaOptions } from '../stacks/serving-optimizer-stack.js';

type SageMakerResource = 'model' | 'endpoint' | 'endpoint-config' | 'compilation-job';

/**
 * The step Lambdas of the optimization workflow, each with only the SageMaker actions it calls.
 * Mutations are scoped to the run's name prefix (`mso-*`); describing and invoking endpoints is
 * allowed on any endpoint because `existingEndpoint` may name one the project did not create.
 */
export function createOptimizationSteps(stack: ServingOptimizerStack): OptimizationSteps {
  const sagemakerRole = stack.sagemakerExecutionRole;
  const arn = (resource: SageMakerResource, name: string): string =>
    Stack.of(stack).formatArn({ service: 'sagemaker', resource, resourceName: name });
  const owned = (resource: SageMakerResource): string => arn(resource, `${RESOURCE_NAME_PREFIX}*`);
  const allow = (fn: ProjectFunction, actions: string[], resources: string[]): void => {
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources }));
    for (const resource of resources) {
      acknowledgeWildcardResource(
        fn.serviceRole,
        resource,
        resource.endsWith(`${RESOURCE_NAME_PREFIX}*`)
          ? 'Scoped to the resources the project creates: every name starts with the run prefix mso-'
          : 'Describe/invoke only: an existing endpoint under test may have any name the user chose',
      );
    }
  };
  const step = (name: string, options: StepLambdaOptions): ProjectFunction =>
    stack.createStepLambda(name, {
      ...options,
      environment: {
        ...options.environment,
        [StepVariables.sagemakerExecutionRoleArn]: sagemakerRole.roleArn,
      },
    });
  const passRole = (fn: ProjectFunction, role: IRole): void => {
    role.grantPassRole(fn.grantPrincipal);
  };
  const readAll = [ArtifactPrefix.models, ArtifactPrefix.runs];

  const validateAndPlan = step('validate-and-plan', { readsArtifacts: readAll });
  // Service Quotas' List* actions support no resource-level permissions (Service Authorization
  // Reference, "Actions defined by Service Quotas"): https://docs.aws.amazon.com/service-authorization/latest/reference/list_servicequotas.html
  validateAndPlan.addToRolePolicy(
    new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['servicequotas:ListServiceQuotas', 'servicequotas:ListAWSDefaultServiceQuotas'],
      resources: ['*'],
    }),
  );
  acknowledgeWildcardResource(
    validateAndPlan.serviceRole,
    '*',
    'servicequotas:ListServiceQuotas/ListAWSDefaultServiceQuotas support no resource-level permissions; read-only quota values',
  );
  const packageModel = step('package-model', {
    readsArtifacts: readAll,
    writesArtifacts: [ArtifactPrefix.runs],
    memorySize: 3008,
    timeout: Duration.minutes(15),
  });
  const startCompilation = step('start-compilation', {});
  allow(
    startCompilation,
    ['sagemaker:CreateCompilationJob', 'sagemaker:AddTags'],
    [owned('compilation-job')],
  );
  passRole(startCompilation, sagemakerRole);
  const checkCompilation = step('check-compilation', {});
  allow(
    checkCompilation,
    ['sagemaker:DescribeCompilationJob', 'sagemaker:StopCompilationJob'],
    [owned('compilation-job')],
  );

  const deployCandidate = step('deploy-candidate', {});
  allow(
    deployCandidate,
    [
      'sagemaker:CreateModel',
      'sagemaker:CreateEndpointConfig',
      'sagemaker:CreateEndpoint',
      'sagemaker:AddTags',
    ],
    [owned('model'), owned('endpoint-config'), owned('endpoint')],
  );
  passRole(deployCandidate, sagemakerRole);
  const describeAny = ['sagemaker:DescribeEndpoint', 'sagemaker:DescribeEndpointConfig'];
  const anyEndpoint = [arn('endpoint', '*'), arn('endpoint-config', '*')];
  allow(deployCandidate, describeAny, anyEndpoint);
  const checkEndpoint = step('check-endpoint', {});
  allow(checkEndpoint, describeAny, anyEndpoint);

  const runLoadWorker = step('run-load-worker', {
    readsArtifacts: readAll,
    writesArtifacts: [ArtifactPrefix.runs],
    // Lambda gives one vCPU per 1,769 MB: the load generator needs CPU, not memory.
    memorySize: 2048,
    timeout: LOAD_WORKER_TIMEOUT,
  });
  allow(runLoadWorker, ['sagemaker:InvokeEndpoint'], [arn('endpoint', '*')]);
  const aggregateLoadTest = step('aggregate-load-test', {
    readsArtifacts: [ArtifactPrefix.runs],
    writesArtifacts: [ArtifactPrefix.runs],
    memorySize: 1024,
    timeout: Duration.minutes(5),
  });

  const deleteCandidate = step('delete-candidate', {});
  allow(
    deleteCandidate,
    [...DELETE_HOSTED_ACTIONS],
    [owned('endpoint'), owned('endpoint-config'), owned('model')],
  );

  const recommend = step('recommend', {
    readsArtifacts: [ArtifactPrefix.runs],
    writesArtifacts: [ArtifactPrefix.runs],
    memorySize: 1024,
    timeout: Duration.minutes(5),
  });

  // GetMetricData supports no resource-level permissions (Service Authorization Reference).
  recommend.addToRolePolicy(
    new PolicyStatement({ effect: Effect.ALLOW, actions: ['cloudwatch:GetMetricData'], resources: ['*'] }),
  );
  acknowledgeWildcardResource(
    recommend.serviceRole,
    '*',
    'cloudwatch:GetMetricData supports no resource-level permissions; it only reads the endpoints’ metrics',
  );

  const cleanUp = step('clean-up', { timeout: Duration.minutes(10) });
  new SageMakerGrants(Stack.of(stack)).allowCleanUp(cleanUp);

  return {
    validateAndPlan,
    packageModel,
    startCompilation,
    checkCompilation,
    deployCandidate,
    checkEndpoint,
    runLoadWorker,
    aggregateLoadTest,
    deleteCandidate,
    recommend,
    cleanUp,
  };
}
