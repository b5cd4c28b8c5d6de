import { StepVariables } from '../../lambdas/config.js';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { ArtifactPrefix, ArtifactsStoreProps } from '../constructs/artifacts-store.js';
import { ArtifactsStore } from '../constructs/artifacts-store.js';
import type { ProjectFunctionProps } from '../constructs/project-function.js';
import { ProjectFunction } from '../constructs/project-function.js';
import { SageMakerExecutionRole } from '../constructs/sagemaker-execution-role.js';
import { createOptimizationSteps } from '../constructs/optimization-steps.js';
import type { JanitorSettings } from '../constructs/safety-net.js';
import { SafetyNet } from '../constructs/safety-net.js';
import { OptimizationWorkflow } from '../../workflows/optimization-workflow.js';
import { acknowledgeWildcardResource } from '../nag/acknowledge.js';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';

export interface ServingOptimizerStackProps extends StackProps {
  /** Removal policy and lifecycle of the artifacts store. @default - see ArtifactsStoreProps */
  readonly artifacts?: ArtifactsStoreProps;
  /**
   * Directory of the step Lambdas' entry files (tests point it at fixtures).
   * @default the repository's `lambdas/`
   */
  readonly lambdaEntryDirectory?: string;
  /**
   * Whether to add the workflows (tests of the foundation alone, with fixture entries, turn it off).
   * @default true
   */
  readonly includeWorkflows?: boolean;
  /**
   * The janitor of the safety net (deployed with the workflows): its maximum age, schedule, time
   * zone and whether it runs.
   * @default - every 6 hours, sweeping resources older than the execution timeout plus one hour (25 h)
   */
  readonly janitor?: JanitorSettings;
}

export interface StepLambdaOptions extends Omit<ProjectFunctionProps, 'stepName' | 'entryDirectory'> {
  /** Prefixes of the artifacts bucket the step reads. @default - none */
  readonly readsArtifacts?: readonly ArtifactPrefix[];
  /** Prefixes of the artifacts bucket the step writes. @default - none */
  readonly writesArtifacts?: readonly ArtifactPrefix[];
}

/**
 * The AWS side of the optimizer: the artifacts store, the role SageMaker assumes, and a factory for
 * the step Lambdas that the optimization state machine invokes.
 */
export class ServingOptimizerStack extends Stack {
  readonly artifacts: ArtifactsStore;
  readonly artifactsBucket: Bucket;
  readonly encryptionKey: Key;
  readonly sagemakerExecutionRole: Role;
  /** The optimization state machine, unless `includeWorkflows` is false. */
  readonly optimization?: OptimizationWorkflow;
  /** Clean-up of failed runs and the janitor, unless `includeWorkflows` is false. */
  readonly safetyNet?: SafetyNet;
  private readonly lambdaEntryDirectory: string | undefined;

  constructor(scope: Construct, id: string, props: ServingOptimizerStackProps = {}) {
    super(scope, id, {
      ...props,
      description:
        props.description ??
        'Model serving optimizer: benchmarks SageMaker serving configurations under a latency SLA',
    });
    this.lambdaEntryDirectory = props.lambdaEntryDirectory;

    this.artifacts = new ArtifactsStore(this, 'Artifacts', props.artifacts);
    this.artifactsBucket = this.artifacts.bucket;
    this.encryptionKey = this.artifacts.encryptionKey;
    this.sagemakerExecutionRole = new SageMakerExecutionRole(this, 'SageMakerExecution', {
      artifacts: this.artifacts,
    }).role;

    new CfnOutput(this, 'ArtifactsBucketName', {
      description: 'Upload models under models/; each run writes under runs/<runId>/',
      value: this.artifactsBucket.bucketName,
    });
    new CfnOutput(this, 'SageMakerExecutionRoleArn', { value: this.sagemakerExecutionRole.roleArn });

    if (props.includeWorkflows !== false) {
      const steps = createOptimizationSteps(this);
      this.optimization = new OptimizationWorkflow(this, 'Optimization', { steps });
      acknowledgeStateMachineGrants(this.optimization.stateMachine, Object.values(steps));
      this.safetyNet = new SafetyNet(this, 'SafetyNet', {
        stateMachine: this.optimization.stateMachine,
        janitor: props.janitor,
      });
      new CfnOutput(this, 'OptimizationStateMachineArn', {
        description: 'Start a run with an input from examples/ (the execution name is the run id)',
        value: this.optimization.stateMachine.stateMachineArn,
      });
    }
  }

  /**
   * One Lambda per workflow step, e.g. `createStepLambda('deploy-candidate', { readsArtifacts:
   * ['runs/'] })`: entry `lambdas/deploy-candidate.ts`, construct id `DeployCandidate`, the bucket
   * name in `ARTIFACTS_BUCKET`, and only the artifact grants asked for.
   */
  createStepLambda(stepName: string, options: StepLambdaOptions = {}): ProjectFunction {
    const { readsArtifacts, writesArtifacts, environment, ...functionProps } = options;
    const fn = new ProjectFunction(this, pascalCase(stepName), {
      ...functionProps,
      stepName,
      entryDirectory: this.lambdaEntryDirectory,
      environment: { ...environment, [StepVariables.artifactsBucket]: this.artifactsBucket.bucketName },
    });
    if (readsArtifacts !== undefined && readsArtifacts.length > 0) {
      this.artifacts.grantRead(fn, ...readsArtifacts);
    }
    if (writesArtifacts !== undefined && writesArtifacts.length > 0) {
      this.artifacts.grantWrite(fn, ...writesArtifacts);
    }
    return fn;
  }
}

/** The wildcards CDK itself writes into a state machine's role; each with why it is acceptable. */
function acknowledgeStateMachineGrants(
  stateMachine: StateMachine,
  stepFunctions: readonly IFunction[],
): void {
  for (const fn of stepFunctions) {
    acknowledgeWildcardResource(
      stateMachine.role,
      `${fn.functionArn}:*`,
      'CDK grants invoke on the step Lambda and its versions/aliases; these are the workflow’s own functions',
    );
  }
  acknowledgeWildcardResource(
    stateMachine.role,
    '*',
    'X-Ray PutTraceSegments/GetSampling* and CloudWatch Logs delivery actions support no resource-level scoping',
  );
}

/** `deploy-candidate` → `DeployCandidate`. */
function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
