import { StepVariables } from '../../lambdas/index.js';
import { Duration, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  RESOURCE_NAME_PREFIX,
  RUN_INPUT_PREFIXES,
  LOAD_WORKER_MEMORY_MB,
  OPTIMIZATION_STEPS,
  type OptimizationStepKey,
} from '../../core/contracts/index.js';
import type { OptimizationSteps } from '../../workflows/index.js';
import { LOAD_WORKER_TIMEOUT } from '../../workflows/index.js';
import { ArtifactPrefix } from './artifacts-store.js';
import type { ProjectFunction } from './project-function.js';
import { DELETE_HOSTED_ACTIONS, INVOKE_ENDPOINT_ACTIONS, SageMakerGrants } from './sagemaker-grants.js';
import { acknowledgeWildcardResource } from '../nag/index.js';
import {
  createRegisteredLambdas,
  type RegisteredLambdaSettings,
  type StepLambdaFactory,
} from './step-lambda-factory.js';

type SageMakerResource = 'model' | 'endpoint' | 'endpoint-config' | 'compilation-job' | 'optimization-job';

export interface OptimizationStepsProps {
  /** Creates each Lambda (the stack). */
  readonly lambdas: StepLambdaFactory;
  /** The role SageMaker assumes: passed by the steps that create models and compilation jobs. */
  readonly sagemakerExecutionRole: IRole;
}

/**
 * The step Lambdas of the optimization workflow, one per entry of OPTIMIZATION_STEPS, each with
 * only the SageMaker actions it calls. Mutations are scoped to the run's name prefix (`mso-*`);
 * describing and invoking endpoints is allowed on any endpoint because `existingEndpoint` may name
 * one the project did not create.
 */
export function createOptimizationSteps(scope: Construct, props: OptimizationStepsProps): OptimizationSteps {
  const sagemakerRole = props.sagemakerExecutionRole;
  return createRegisteredLambdas(
    OPTIMIZATION_STEPS,
    optimizationStepSettings(scope, sagemakerRole),
    (name, options) =>
      props.lambdas.createStepLambda(name, {
        ...options,
        environment: {
          ...options.environment,
          [StepVariables.sagemakerExecutionRoleArn]: sagemakerRole.roleArn,
        },
      }),
  );
}

/**
 * What "Validate and plan" reads, and nothing it could write: the run's models and objects, and the
 * account's instance quotas. One source for the state's Lambda and the run API's plan route
 * (infra/constructs/run-api.ts), which runs the same planning over the same adapters.
 */
export function validateAndPlanSettings(): Required<RegisteredLambdaSettings> {
  return {
    // What the run's input may name, as "Validate and plan" checks it, and the day's price read it
    // keeps (core/planning/price-source.ts): the run API's plan route reads that copy only.
    lambda: {
      readsArtifacts: [...RUN_INPUT_PREFIXES.optimization, ArtifactPrefix.prices],
      writesArtifacts: [ArtifactPrefix.prices],
    },
    grant: (fn) => {
      // Prices and instance facts of the region, read live. Neither action has a resource type nor a
      // condition key of its own (Service Authorization Reference: "Actions defined by AWS Price
      // List", https://docs.aws.amazon.com/service-authorization/latest/reference/list_awspricelist.html;
      // "Actions defined by Amazon EC2", DescribeInstanceTypes,
      // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html).
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['pricing:GetProducts', 'ec2:DescribeInstanceTypes'],
          resources: ['*'],
        }),
      );
      // Service Quotas' List* actions support no resource-level permissions (Service Authorization
      // Reference, "Actions defined by Service Quotas"): https://docs.aws.amazon.com/service-authorization/latest/reference/list_servicequotas.html
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['servicequotas:ListServiceQuotas', 'servicequotas:ListAWSDefaultServiceQuotas'],
          resources: ['*'],
        }),
      );
      acknowledgeWildcardResource(
        fn.serviceRole,
        '*',
        'servicequotas:ListServiceQuotas/ListAWSDefaultServiceQuotas, pricing:GetProducts and ec2:DescribeInstanceTypes support no resource-level permissions; read-only quota values, public prices and instance type facts',
      );
    },
  };
}

/**
 * Each step's memory, timeout, artifact access and grants: typed by the registry, so a step added
 * to OPTIMIZATION_STEPS without its settings here fails the type-check.
 */
function optimizationStepSettings(
  scope: Construct,
  sagemakerRole: IRole,
): Readonly<Record<OptimizationStepKey, RegisteredLambdaSettings>> {
  const stack = Stack.of(scope);
  const arn = (resource: SageMakerResource, name: string): string =>
    stack.formatArn({ service: 'sagemaker', resource, resourceName: name });
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
  // Passed to SageMaker only: CreateModel, CreateCompilationJob and CreateOptimizationJob each need
  // iam:PassRole on the role they name (SageMaker API reference, RoleArn / ExecutionRoleArn), and
  // iam:PassedToService limits it to the service that assumes it (IAM User Guide, "Granting a user
  // permissions to pass a role to an AWS service":
  // https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_passrole.html).
  const passRole = (fn: ProjectFunction): void => {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['iam:PassRole'],
        resources: [sagemakerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
      }),
    );
  };
  // The model and payloads the run's input names, and the run's own objects.
  const readAll = RUN_INPUT_PREFIXES.optimization;
  const describeAny = ['sagemaker:DescribeEndpoint', 'sagemaker:DescribeEndpointConfig'];
  const anyEndpoint = [arn('endpoint', '*'), arn('endpoint-config', '*')];

  return {
    validateAndPlan: validateAndPlanSettings(),
    packageModel: {
      lambda: {
        readsArtifacts: readAll,
        writesArtifacts: [ArtifactPrefix.runs],
        memorySize: 3008,
        timeout: Duration.minutes(15),
      },
    },
    startCompilation: {
      grant: (fn) => {
        allow(fn, ['sagemaker:CreateCompilationJob', 'sagemaker:AddTags'], [owned('compilation-job')]);
        // The optimization items of the same Map, on the optimization-job ARN (`…:optimization-job/<name>`,
        // the OptimizationJobArn pattern of the SageMaker Smithy model; resource type optimization-job in
        // the Service Authorization Reference, https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemakerai.html).
        // AddTags too, as for Neo: a create with Tags is also authorized as sagemaker:AddTags.
        allow(fn, ['sagemaker:CreateOptimizationJob', 'sagemaker:AddTags'], [owned('optimization-job')]);
        passRole(fn);
      },
    },
    checkCompilation: {
      grant: (fn) => {
        allow(
          fn,
          ['sagemaker:DescribeCompilationJob', 'sagemaker:StopCompilationJob'],
          [owned('compilation-job')],
        );
        allow(
          fn,
          ['sagemaker:DescribeOptimizationJob', 'sagemaker:StopOptimizationJob'],
          [owned('optimization-job')],
        );
      },
    },
    deployCandidate: {
      grant: (fn) => {
        allow(
          fn,
          [
            'sagemaker:CreateModel',
            'sagemaker:CreateEndpointConfig',
            'sagemaker:CreateEndpoint',
            'sagemaker:AddTags',
          ],
          [owned('model'), owned('endpoint-config'), owned('endpoint')],
        );
        passRole(fn);
        allow(fn, describeAny, anyEndpoint);
      },
    },
    checkEndpoint: {
      grant: (fn) => {
        allow(fn, describeAny, anyEndpoint);
      },
    },
    runLoadWorker: {
      lambda: {
        readsArtifacts: readAll,
        writesArtifacts: [ArtifactPrefix.runs],
        // Lambda gives one vCPU per 1,769 MB: the load generator needs CPU, not memory. The
        // planner sizes workers from this figure (core/load-test/worker-ceiling.ts).
        memorySize: LOAD_WORKER_MEMORY_MB,
        timeout: LOAD_WORKER_TIMEOUT,
      },
      grant: (fn) => {
        // Every load test (candidates, proof, ramp) runs here, buffered or streamed: both invoke
        // actions (INVOKE_ENDPOINT_ACTIONS says why the streamed one is granted on its own).
        allow(fn, [...INVOKE_ENDPOINT_ACTIONS], [arn('endpoint', '*')]);
      },
    },
    aggregateLoadTest: {
      lambda: {
        readsArtifacts: [ArtifactPrefix.runs],
        writesArtifacts: [ArtifactPrefix.runs],
        memorySize: 1024,
        timeout: Duration.minutes(5),
      },
    },
    deleteCandidate: {
      grant: (fn) => {
        allow(fn, [...DELETE_HOSTED_ACTIONS], [owned('endpoint'), owned('endpoint-config'), owned('model')]);
      },
    },
    recommend: {
      lambda: {
        // model-packages/: each Model Registry group's index of its last approved run, which
        // "Recommend" alone reads and writes (core/report/registry-baseline.ts).
        readsArtifacts: [ArtifactPrefix.runs, ArtifactPrefix.modelPackages],
        writesArtifacts: [ArtifactPrefix.runs, ArtifactPrefix.modelPackages],
        memorySize: 1024,
        timeout: Duration.minutes(5),
      },
      grant: (fn) => {
        // GetMetricData supports no resource-level permissions (Service Authorization Reference).
        fn.addToRolePolicy(
          new PolicyStatement({
            effect: Effect.ALLOW,
            actions: ['cloudwatch:GetMetricData'],
            resources: ['*'],
          }),
        );
        acknowledgeWildcardResource(
          fn.serviceRole,
          '*',
          'cloudwatch:GetMetricData supports no resource-level permissions; it only reads the endpoints’ metrics',
        );
      },
    },
    recordProof: {
      lambda: {
        // The proof's worker results and the report it rewrites; nothing else.
        readsArtifacts: [ArtifactPrefix.runs],
        writesArtifacts: [ArtifactPrefix.runs],
        memorySize: 1024,
        timeout: Duration.minutes(5),
      },
      grant: (fn) => {
        // GetMetricData supports no resource-level permissions (Service Authorization Reference,
        // "Actions defined by Amazon CloudWatch": https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html).
        fn.addToRolePolicy(
          new PolicyStatement({
            effect: Effect.ALLOW,
            actions: ['cloudwatch:GetMetricData'],
            resources: ['*'],
          }),
        );
        acknowledgeWildcardResource(
          fn.serviceRole,
          '*',
          'cloudwatch:GetMetricData supports no resource-level permissions; it only reads the proof endpoint’s InvocationsPerInstance',
        );
      },
    },
    rampScaling: {
      grant: (fn) => {
        // The report's RegisterScalableTarget and PutScalingPolicy on the ramp endpoint's variant,
        // and DeregisterScalableTarget on every path after it.
        const grants = new SageMakerGrants(stack);
        grants.allowApplyScaling(fn);
        grants.allowDeregisterScaling(fn);
      },
    },
    recordRamp: {
      lambda: {
        // The ramp's merged result and the report it rewrites; nothing else.
        readsArtifacts: [ArtifactPrefix.runs],
        writesArtifacts: [ArtifactPrefix.runs],
        memorySize: 1024,
        timeout: Duration.minutes(5),
      },
      grant: (fn) => {
        // The ramp endpoint's instance counts, from its scaling activities.
        new SageMakerGrants(stack).allowReadScalingActivities(fn);
      },
    },
    qualityPass: {
      lambda: {
        // The payloads the run sends, and the run's own answers and verdicts.
        readsArtifacts: readAll,
        writesArtifacts: [ArtifactPrefix.runs],
        memorySize: 1024,
        timeout: Duration.minutes(15),
      },
      grant: (fn) => {
        // Only the run's own candidates are guarded (the guard refuses existingEndpoint), so only
        // buffered InvokeEndpoint on the endpoints the project creates.
        allow(fn, ['sagemaker:InvokeEndpoint'], [owned('endpoint')]);
      },
    },
    cleanUp: {
      // After a failure, it looks for the report and the load-test results stored under runs/.
      lambda: { timeout: Duration.minutes(10), readsArtifacts: [ArtifactPrefix.runs] },
      grant: (fn) => {
        const grants = new SageMakerGrants(stack);
        grants.allowCleanUp(fn);
        // The ramp endpoint's scaling, when "Deregister ramp scaling" could not remove it.
        grants.allowDeregisterScaling(fn);
      },
    },
  };
}
