import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledgeGuardRule, acknowledgeNagRule, acknowledgeWildcardResource } from '../nag/index.js';
import { DEPS_LOCK_FILE, LAMBDA_ENTRY_DIRECTORY, REPO_ROOT } from './paths.js';

/** Powertools reads these names (https://docs.powertools.aws.dev/lambda/typescript/latest/environment-variables/). */
export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export const PROJECT_SERVICE_NAME = 'model-serving-optimizer';
export const PROJECT_METRICS_NAMESPACE = 'ModelServingOptimizer';

/**
 * The variable that names the step a Lambda runs. The local runner maps each function of a
 * synthesized template back to `core/<STEP_NAME>.ts` through it: one name per step across
 * layers (state "Deploy candidate" ↔ lambdas/deploy-candidate.ts ↔
 * core/steps/optimization/deploy-candidate.ts).
 */
export const STEP_NAME_VARIABLE = 'STEP_NAME';

/** Variables the wrapper owns; `environment` may not override them. */
const RESERVED_VARIABLES = [
  STEP_NAME_VARIABLE,
  'NODE_OPTIONS',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
] as const;

const KEBAB_CASE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * ESM bundles have no `require`; CommonJS dependencies bundled into them still call it. Defining
 * it from `createRequire` is the workaround the Powertools docs give for ESM on Lambda.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

export interface ProjectFunctionProps {
  /**
   * Kebab-case name of the workflow step, e.g. `deploy-candidate`. It is the entry file's name
   * (`<entryDirectory>/<stepName>.ts`) and the value of `STEP_NAME`.
   */
  readonly stepName: string;
  /**
   * Directory holding the entry files.
   * @default the repository's `lambdas/`
   */
  readonly entryDirectory?: string;
  /**
   * Lambda allocates CPU in proportion to memory
   * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html); 512 MB keeps the cold
   * start of a bundle that includes the AWS SDK short.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Steps only call AWS APIs and return; waits happen in the state machine, not in a Lambda.
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /**
   * Extra environment variables. `STEP_NAME`, `NODE_OPTIONS` and the Powertools variables are
   * set by the wrapper (use `logLevel`, `serviceName`, `metricsNamespace`).
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default 'INFO' */
  readonly logLevel?: PowertoolsLogLevel;
  /** @default PROJECT_SERVICE_NAME */
  readonly serviceName?: string;
  /** @default PROJECT_METRICS_NAMESPACE */
  readonly metricsNamespace?: string;
  /** @default - "Workflow step <stepName>" */
  readonly description?: string;
}

/**
 * The project's one NodejsFunction: Node.js 22 on arm64, an ESM bundle built by the local esbuild
 * (never Docker), minified with source maps, X-Ray tracing, Powertools settings, an explicit log
 * group with retention and a role that may write only to that log group.
 *
 * The log group and the role are created beside the function (`<id>LogGroup`, `<id>Role`) because
 * the function needs them in its constructor call.
 */
export class ProjectFunction extends NodejsFunction {
  readonly stepName: string;
  readonly functionLogGroup: LogGroup;
  readonly serviceRole: Role;

  constructor(scope: Construct, id: string, props: ProjectFunctionProps) {
    const entry = resolveStepEntry(props.stepName, props.entryDirectory ?? LAMBDA_ENTRY_DIRECTORY);
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${props.stepName} step`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every log group): this log group only.
    logGroup.grantWrite(role);

    super(scope, id, {
      entry,
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      description: props.description ?? `Workflow step ${props.stepName}`,
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      projectRoot: REPO_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      environment: buildEnvironment(props),
      bundling: {
        format: OutputFormat.ESM,
        // Prefer the ESM build of dependencies that ship both.
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // Bundle the SDK version the tests ran against rather than the runtime's copy, as the
        // Lambda best practices advise for production.
        bundleAwsSDK: true,
        forceDockerBundling: false,
      },
    });

    this.stepName = props.stepName;
    this.functionLogGroup = logGroup;
    this.serviceRole = role;

    acknowledgeGuardRule(
      logGroup,
      'cloudwatch_log_group_retention_period_check',
      'A step’s own logs serve debugging of recent runs (one month by default, `logRetention` to change); ' +
        'the lasting record of a run is its report in S3 and the API access logs, kept a year.',
    );
    acknowledgeNagRule(
      this,
      'AwsSolutions-L1',
      'The project targets nodejs22.x on purpose: some dependencies require Node 22, and moving to a ' +
        'newer runtime is a tested upgrade of the whole project, not a per-function default.',
    );
    acknowledgeWildcardResource(
      role,
      '*',
      'X-Ray tracing (Tracing.ACTIVE) needs xray:PutTraceSegments and xray:PutTelemetryRecords, ' +
        'which support no resource-level permissions (Service Authorization Reference, AWS X-Ray).',
    );
  }
}

/** `<entryDirectory>/<stepName>.ts`, after checking the name and that the file exists. */
export function resolveStepEntry(stepName: string, entryDirectory: string): string {
  if (!KEBAB_CASE.test(stepName)) {
    throw new Error(
      `ProjectFunction: got the step name "${stepName}", expected kebab-case (lowercase words joined ` +
        `by "-", e.g. "deploy-candidate") because it is also the entry file's name`,
    );
  }
  const entry = join(entryDirectory, `${stepName}.ts`);
  if (!existsSync(entry)) {
    throw new Error(
      `ProjectFunction: no entry file for the step "${stepName}": expected ${relative(REPO_ROOT, entry)} ` +
        `(one thin entry per step, named after the step)`,
    );
  }
  return entry;
}

function buildEnvironment(props: ProjectFunctionProps): Record<string, string> {
  const extra = props.environment ?? {};
  const clashes = RESERVED_VARIABLES.filter((name) => name in extra);
  if (clashes.length > 0) {
    throw new Error(
      `ProjectFunction ${props.stepName}: got environment variables ${clashes.join(', ')}, expected none ` +
        `of ${RESERVED_VARIABLES.join(', ')}: the wrapper sets them (use logLevel, serviceName, metricsNamespace)`,
    );
  }
  return {
    ...extra,
    [STEP_NAME_VARIABLE]: props.stepName,
    // Stack traces point at the TypeScript sources through the bundle's source map.
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: props.serviceName ?? PROJECT_SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? PROJECT_METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
  };
}
