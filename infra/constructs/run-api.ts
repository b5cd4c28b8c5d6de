import { Arn, ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type Model,
  type RequestValidator,
  type Resource,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  RUN_INPUT_SCHEMAS,
  RUN_PLAN_PATH,
  RUN_RESOURCES,
  RUN_SUBRESOURCES,
  RunWorkflows,
  type RunWorkflow,
  SUPPORT_FUNCTIONS,
} from '../../core/contracts/index.js';
import { StateMachineVariables } from '../../lambdas/index.js';
import { acknowledgeGuardRule, acknowledgeNagRule, acknowledgeWildcardResource } from '../nag/index.js';
import type { RegisteredLambdaSettings, StepLambdaFactory } from './step-lambda-factory.js';
import type { ProjectFunction } from './project-function.js';
import { startRunRequestSchema } from './run-api-models.js';
import { validateAndPlanSettings } from './optimization-steps.js';

export interface RunApiThrottling {
  /** Steady-state requests per second, for the whole stage. */
  readonly rateLimit: number;
  /** Requests API Gateway lets through at once above the steady rate. */
  readonly burstLimit: number;
}

/**
 * A person or a pipeline starts a few runs and polls their status every few seconds: 10 requests
 * per second leaves room for both, and keeps a runaway script from starting runs (each costs
 * SageMaker instances) faster than someone can notice.
 */
export const DEFAULT_RUN_API_THROTTLING: RunApiThrottling = { rateLimit: 10, burstLimit: 20 };

export interface RunApiProps {
  /** Creates the construct's Lambdas (the stack). */
  readonly lambdas: StepLambdaFactory;
  /** The optimization workflow's state machine: `POST /runs`, `GET /runs/{id}`. */
  readonly optimization: IStateMachine;
  /** The async-inference workflow's state machine: `POST /async-runs`, `GET /async-runs/{id}`. @default - no async routes */
  readonly asyncInference?: IStateMachine;
  /**
   * What the async workflow's planning reads with (AsyncInference.planning): `POST /async-runs/plan`
   * plans with it. @default - no `POST /async-runs/plan`
   */
  readonly asyncPlanning?: Required<RegisteredLambdaSettings>;
  /** Stage throttling. @default DEFAULT_RUN_API_THROTTLING (10 requests/s, bursts of 20) */
  readonly throttling?: RunApiThrottling;
  /**
   * Retention of the access logs: who started or read which run, and when.
   * @default RetentionDays.ONE_YEAR
   */
  readonly logRetention?: RetentionDays;
  /** @default 'v1' */
  readonly stageName?: string;
  /**
   * CloudWatch logging of the stage (access logs and error-level execution logs). API Gateway
   * writes both with the account's CloudWatch Logs role, one per account and region, and refuses
   * a stage that asks for either while that role is unset (see ApiLoggingModes).
   * @default ApiLoggingModes.off
   */
  readonly logging?: ApiLogging;
}

/**
 * How the run API logs, given who owns API Gateway's account-wide CloudWatch Logs role
 * (`AWS::ApiGateway::Account`, one per account and region, shared by every REST API there).
 *
 * API Gateway writes execution logs and access logs to CloudWatch Logs with that role, and a stage
 * that turns either on while the account has none fails to deploy with "CloudWatch Logs role ARN
 * must be set in account settings to enable logging" (API Gateway developer guide, "Set up
 * CloudWatch logging for REST APIs": "To enable CloudWatch Logs, you must grant API Gateway
 * permission ... for your account"). So the default logs nothing and deploys anywhere.
 */
export const ApiLoggingModes = {
  /** No access or execution logs: nothing depends on the account's settings. */
  off: 'off',
  /** The account already has the role (set by its administrators or another stack): log with it. */
  useAccountRole: 'use-account-role',
  /**
   * The stack creates the role and sets it as the account's (replacing any other for every API in
   * the region), kept when the stack is deleted, then logs with it.
   */
  setAccountRole: 'set-account-role',
} as const;
export type ApiLogging = (typeof ApiLoggingModes)[keyof typeof ApiLoggingModes];

/** Reads a logging mode from CDK context or a prop; names the accepted values otherwise. */
export function parseApiLogging(value: unknown, source: string): ApiLogging {
  const modes: readonly unknown[] = Object.values(ApiLoggingModes);
  if (!modes.includes(value)) {
    throw new Error(
      `${source}: got ${JSON.stringify(value)}, expected one of ${Object.values(ApiLoggingModes).join(', ')} ` +
        '(docs/deploying.md: which one fits depends on who sets the account’s API Gateway CloudWatch role)',
    );
  }
  return value as ApiLogging;
}

/** What one workflow gets from the API. */
export interface RunRoutes {
  readonly resource: Resource;
  /** The body's shape, for the API's exported definition; start-run checks bodies with the zod schema. */
  readonly requestModel: Model;
}

/**
 * Access log line: who called (IAM identity), what, the outcome and the latencies. Never a body:
 * run inputs may name private buckets. `$context.error.messageString` is already a quoted JSON
 * string (API Gateway access-logging variables).
 */
const ACCESS_LOG_FORMAT = [
  '{"requestId":"$context.requestId"',
  '"extendedRequestId":"$context.extendedRequestId"',
  '"requestTime":"$context.requestTime"',
  '"callerArn":"$context.identity.userArn"',
  '"callerAccount":"$context.identity.accountId"',
  '"sourceIp":"$context.identity.sourceIp"',
  '"httpMethod":"$context.httpMethod"',
  '"resourcePath":"$context.resourcePath"',
  '"path":"$context.path"',
  '"status":"$context.status"',
  '"responseLength":"$context.responseLength"',
  '"latencyMs":"$context.responseLatency"',
  '"integrationStatus":"$context.integration.status"',
  '"integrationLatencyMs":"$context.integration.latency"',
  '"xrayTraceId":"$context.xrayTraceId"',
  '"error":$context.error.messageString}',
].join(',');

/**
 * The IAM-authenticated run API: `POST /runs` starts an optimization run, `POST /runs/plan`
 * answers its plan (the first state's checks, nothing created),
 * `POST /async-runs` an async-inference run, `GET /runs/{id}` and `GET /async-runs/{id}` return a
 * run's status, progress and report location.
 *
 * Each `POST` is a Lambda (`start-run`) that checks the body with the workflow's own run-input
 * schema and the one input-error formatter, so a refused body gets 400 with the same issue list
 * (field, given, expected) the first state, the CLIs and `runs start` give, then calls
 * StartExecution; the client's run id becomes the execution name, so a retried request starts no
 * second run. Status needs the execution history (DescribeExecution has no
 * progress), so each `GET` is a Lambda too (`describe-run`).
 */
export class RunApi extends Construct {
  readonly api: RestApi;
  /** The access log group, unless `logging` is off. */
  readonly accessLogs?: LogGroup;
  readonly requestValidator: RequestValidator;
  readonly describeRun: ProjectFunction;
  readonly startRun: ProjectFunction;
  /**
   * `POST /runs/plan` and `POST /async-runs/plan`: the first states' planning with their own read
   * grants, nothing that writes.
   */
  readonly planRun: ProjectFunction;
  /** `GET /<resource>`: ListExecutions on the workflows' state machines. */
  readonly listRuns: ProjectFunction;
  /** `POST /<resource>/{id}/stop`: DescribeExecution and StopExecution on their executions. */
  readonly stopRun: ProjectFunction;
  /** `GET /<resource>/{id}/events`: GetExecutionHistory on their executions. */
  readonly runEvents: ProjectFunction;
  /** `GET /<resource>/{id}/report`: DescribeExecution, and reads `runs/` to presign links. */
  readonly runReport: ProjectFunction;
  readonly routes: Readonly<Partial<Record<RunWorkflow, RunRoutes>>>;
  /** The stage's URL, e.g. `https://<id>.execute-api.<region>.amazonaws.com/v1/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RunApiProps) {
    super(scope, id);
    const throttling = checkThrottling(props.throttling ?? DEFAULT_RUN_API_THROTTLING);
    const logging = parseApiLogging(props.logging ?? ApiLoggingModes.off, 'RunApi logging');
    const setsAccountRole = logging === ApiLoggingModes.setAccountRole;

    this.accessLogs =
      logging === ApiLoggingModes.off
        ? undefined
        : new LogGroup(this, 'AccessLogs', { retention: props.logRetention ?? RetentionDays.ONE_YEAR });
    this.api = new RestApi(this, 'Api', {
      restApiName: `${Stack.of(this).stackName}-runs`,
      description: 'Model serving optimizer: start optimization and async-inference runs, read their status',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      defaultMethodOptions: { authorizationType: AuthorizationType.IAM },
      cloudWatchRole: setsAccountRole,
      // The role is the account's setting for every API in the region: keep it when this stack goes.
      ...(setsAccountRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        tracingEnabled: true,
        metricsEnabled: true,
        throttlingRateLimit: throttling.rateLimit,
        throttlingBurstLimit: throttling.burstLimit,
        ...(this.accessLogs === undefined
          ? {}
          : {
              // Execution logs for errors only, and never request or response bodies (dataTrace).
              loggingLevel: MethodLoggingLevel.ERROR,
              dataTraceEnabled: false,
              accessLogDestination: new LogGroupLogDestination(this.accessLogs),
              accessLogFormat: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
            }),
      },
    });
    this.url = this.api.url;
    // The GET routes' `{id}`; POST bodies are checked by start-run (see addRoutes).
    this.requestValidator = this.api.addRequestValidator('Parameters', {
      validateRequestBody: false,
      validateRequestParameters: true,
    });

    // Both Lambdas read the state machines' ARNs (lambdas/run-api-wiring.ts).
    const stateMachines = {
      [StateMachineVariables.optimization]: props.optimization.stateMachineArn,
      ...(props.asyncInference === undefined
        ? {}
        : { [StateMachineVariables['async-inference']]: props.asyncInference.stateMachineArn }),
    };
    this.describeRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.describeRun, {
      // One DescribeExecution and at most 25 history pages; API Gateway waits at most 29 s.
      timeout: Duration.seconds(20),
      description: 'Run API: the status, progress and report location of a run',
      environment: stateMachines,
    });
    const describeIntegration = new LambdaIntegration(this.describeRun, {
      proxy: true,
      allowTestInvoke: false,
    });
    this.startRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.startRun, {
      // One StartExecution after the body's checks; API Gateway waits at most 29 s.
      timeout: Duration.seconds(20),
      description: "Run API: checks a run request with the workflow's run-input schema, then starts the run",
      environment: stateMachines,
    });
    const startIntegration = new LambdaIntegration(this.startRun, { proxy: true, allowTestInvoke: false });
    // The states' own grants (one source), so the plan checks what the run will be allowed to read.
    const asyncPlanning = props.asyncInference === undefined ? undefined : props.asyncPlanning;
    const planning = [validateAndPlanSettings(), ...(asyncPlanning === undefined ? [] : [asyncPlanning])];
    this.planRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.planRun, {
      readsArtifacts: [...new Set(planning.flatMap((settings) => settings.lambda.readsArtifacts ?? []))],
      environment: planning.reduce<Record<string, string>>(
        (all, settings) => ({ ...all, ...settings.lambda.environment }),
        {},
      ),
      // A few HeadObject/GetObject calls and Service Quotas pages; API Gateway waits at most 29 s.
      timeout: Duration.seconds(25),
      description: "Run API: the plan of a run (the first state's planning, read-only); creates nothing",
    });
    for (const settings of planning) settings.grant(this.planRun);
    this.listRuns = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.listRuns, {
      // At most 10 ListExecutions pages (lambdas/adapters/sfn-run-lister.ts); API Gateway waits at most 29 s.
      timeout: Duration.seconds(20),
      description: "Run API: a workflow's runs, filtered by status and start date",
      environment: stateMachines,
    });
    this.stopRun = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.stopRun, {
      timeout: Duration.seconds(20),
      description: 'Run API: stops a running run',
      environment: stateMachines,
    });
    this.runEvents = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.runEvents, {
      timeout: Duration.seconds(20),
      description: "Run API: a run's progress events, from its execution history",
      environment: stateMachines,
    });
    this.runReport = props.lambdas.createStepLambda(SUPPORT_FUNCTIONS.runReport, {
      timeout: Duration.seconds(20),
      description: "Run API: presigned links to a run's report files",
      environment: stateMachines,
      // s3:GetObject under runs/ and kms:Decrypt through S3 with the bucket's key: a presigned link
      // works only while its signer holds both (infra/constructs/artifacts-store.ts, grantRead).
      readsArtifacts: ['runs/'],
    });
    const integrationOf = (fn: ProjectFunction) =>
      new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
    const operations: RunOperationIntegrations = {
      list: integrationOf(this.listRuns),
      stop: integrationOf(this.stopRun),
      events: integrationOf(this.runEvents),
      report: integrationOf(this.runReport),
    };

    const routes: Partial<Record<RunWorkflow, RunRoutes>> = {};
    const machines: [RunWorkflow, IStateMachine | undefined][] = [
      [RunWorkflows.optimization, props.optimization],
      [RunWorkflows.asyncInference, props.asyncInference],
    ];
    for (const [workflow, stateMachine] of machines) {
      if (stateMachine === undefined) continue;
      routes[workflow] = this.addRoutes(workflow, { start: startIntegration, describe: describeIntegration });
      this.addOperationRoutes(routes[workflow].resource, operations);
      if (workflow === RunWorkflows.optimization || asyncPlanning !== undefined) {
        this.addPlanRoute(routes[workflow]);
      }
      this.allowDescribe(stateMachine);
      this.allowOperations(stateMachine);
      stateMachine.grantStartExecution(this.startRun);
    }
    this.routes = routes;

    // RestApi adds an "Endpoint" output with a generated name; one output, named and described, suffices.
    this.api.node.tryRemoveChild('Endpoint');
    new CfnOutput(Stack.of(this), `${id}Url`, {
      description:
        'The run API (IAM auth): runs, runs/plan, runs/{id}, its stop, events and report; see `npm run -s runs -- --help`',
      value: this.api.url,
    });
    this.acknowledgeFindings(logging);
  }

  /** `POST /<resource>` (start-run) and `GET /<resource>/{id}` (describe-run) of one workflow. */
  private addRoutes(
    workflow: RunWorkflow,
    integrations: { readonly start: LambdaIntegration; readonly describe: LambdaIntegration },
  ): RunRoutes {
    const name = pascalCase(workflow);
    const resource = this.api.root.addResource(RUN_RESOURCES[workflow]);
    // Documents the body in the API's exported definition. API Gateway does not validate with it:
    // its draft-4 messages would differ from the first state's, and start-run checks every rule.
    const requestModel = this.api.addModel(`Start${name}RunRequest`, {
      contentType: 'application/json',
      description: `POST /${RUN_RESOURCES[workflow]}: { runId?, input } with the ${workflow} run input`,
      schema: startRunRequestSchema(`Start${name}RunRequest`, RUN_INPUT_SCHEMAS[workflow]),
    });
    resource.addMethod('POST', integrations.start, {
      authorizationType: AuthorizationType.IAM,
      requestModels: { 'application/json': requestModel },
    });
    resource.addResource('{id}').addMethod('GET', integrations.describe, {
      authorizationType: AuthorizationType.IAM,
      requestValidator: this.requestValidator,
      requestParameters: { 'method.request.path.id': true },
    });
    return { resource, requestModel };
  }

  /**
   * `POST /<resource>/plan` (plan-run): the body of `POST /<resource>`, answered with the plan.
   * The `plan` resource sits beside `{id}`: both POST routes refuse the run id `plan` (run-request.ts).
   */
  private addPlanRoute(routes: RunRoutes): void {
    routes.resource
      .addResource(RUN_PLAN_PATH)
      .addMethod('POST', new LambdaIntegration(this.planRun, { proxy: true, allowTestInvoke: false }), {
        authorizationType: AuthorizationType.IAM,
        requestModels: { 'application/json': routes.requestModel },
      });
  }

  /**
   * `GET /<resource>` (list-runs), and under `/<resource>/{id}`: `POST stop` (stop-run),
   * `GET events` (run-events), `GET report` (run-report). Every method IAM-authenticated; the
   * `{id}` routes require the path parameter, as `GET /<resource>/{id}` does.
   */
  private addOperationRoutes(resource: Resource, integrations: RunOperationIntegrations): void {
    resource.addMethod('GET', integrations.list, {
      authorizationType: AuthorizationType.IAM,
      requestValidator: this.requestValidator,
      requestParameters: {
        'method.request.querystring.status': false,
        'method.request.querystring.since': false,
        'method.request.querystring.limit': false,
      },
    });
    const run = resource.getResource('{id}') ?? resource.addResource('{id}');
    const withId = {
      authorizationType: AuthorizationType.IAM,
      requestValidator: this.requestValidator,
      requestParameters: { 'method.request.path.id': true },
    };
    run.addResource(RUN_SUBRESOURCES.stop).addMethod('POST', integrations.stop, withId);
    run.addResource(RUN_SUBRESOURCES.events).addMethod('GET', integrations.events, {
      ...withId,
      requestParameters: { ...withId.requestParameters, 'method.request.querystring.limit': false },
    });
    run.addResource(RUN_SUBRESOURCES.report).addMethod('GET', integrations.report, withId);
  }

  /**
   * Least privilege per route (Step Functions service authorization reference,
   * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html: ListExecutions is
   * authorized on the state machine, DescribeExecution, StopExecution and GetExecutionHistory on the
   * execution): list-runs lists this state machine's executions; stop-run describes and stops its
   * executions; run-events reads their history; run-report describes them.
   */
  private allowOperations(stateMachine: IStateMachine): void {
    const executions = executionsOf(stateMachine);
    this.listRuns.serviceRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:ListExecutions'], resources: [stateMachine.stateMachineArn] }),
    );
    const grants: [ProjectFunction, string[]][] = [
      [this.stopRun, ['states:DescribeExecution', 'states:StopExecution']],
      [this.runEvents, ['states:GetExecutionHistory']],
      [this.runReport, ['states:DescribeExecution']],
    ];
    for (const [fn, actions] of grants) {
      fn.serviceRole.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [executions] }));
      acknowledgeWildcardResource(
        fn.serviceRole,
        executions,
        'Run ids are execution names chosen at run time; the grant covers the executions of this one state machine',
      );
    }
  }

  /** DescribeExecution and GetExecutionHistory on this state machine's executions, nothing else. */
  private allowDescribe(stateMachine: IStateMachine): void {
    const executions = executionsOf(stateMachine);
    this.describeRun.serviceRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:DescribeExecution', 'states:GetExecutionHistory'],
        resources: [executions],
      }),
    );
    acknowledgeWildcardResource(
      this.describeRun.serviceRole,
      executions,
      'Run ids are execution names chosen at run time; the grant covers the executions of this one state machine',
    );
  }

  private acknowledgeFindings(logging: ApiLogging): void {
    acknowledgeNagRule(
      this.api,
      'AwsSolutions-APIG3',
      'Every method requires SigV4 (IAM) authentication and the stage is throttled; a WAF web ACL adds a ' +
        'per-request cost without protecting anything IAM does not already refuse.',
    );
    acknowledgeNagRule(
      this.api,
      'AwsSolutions-APIG2',
      'Request validation is on for the GET path parameter; POST bodies are validated by the start-run ' +
        'Lambda with the run-input zod schemas, every rule and not only the draft-4 subset a model can say, ' +
        'answering 400 with the same field-named issues as the workflows’ first states before StartExecution.',
    );
    acknowledgeNagRule(
      this.api,
      'AwsSolutions-COG4',
      'The API is for operators and pipelines that hold AWS credentials: IAM (SigV4) authorization is the ' +
        'chosen mechanism, not Cognito user pools.',
    );
    if (logging === ApiLoggingModes.off) {
      const reason =
        'Stage logging needs the account-wide API Gateway CloudWatch role, which the stack does not take over ' +
        'by default; the apiLogging context value turns access and error logs on (docs/deploying.md).';
      acknowledgeNagRule(this.api, 'AwsSolutions-APIG1', reason);
      acknowledgeNagRule(this.api, 'AwsSolutions-APIG6', reason);
      acknowledgeGuardRule(this.api, 'api_gw_v1_execution_logging_enabled_check', reason);
    }
    if (Token.isUnresolved(Stack.of(this).account)) {
      // Guard's CT.LAMBDA.PR.2 accepts a SourceAccount or SourceArn only as a literal string or a
      // reference to a resource of the template; an environment-agnostic synth has neither here.
      acknowledgeGuardRule(
        this.api,
        'lambda_function_public_access_prohibited_check',
        'API Gateway may invoke describe-run only from this API’s stage (SourceArn) and this account ' +
          '(SourceAccount = AWS::AccountId, resolved at deploy), which Guard cannot read as literals.',
      );
    }
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (logging === ApiLoggingModes.setAccountRole && cloudWatchRole !== undefined) {
      acknowledgeNagRule(
        cloudWatchRole,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        'API Gateway has one CloudWatch Logs role per account and region, used by every API there; AWS ' +
          'publishes this managed policy for it, and a policy scoped to this API would break the others.',
      );
    }
  }
}

/** The Lambda integrations of the routes beside start and status. */
interface RunOperationIntegrations {
  readonly list: LambdaIntegration;
  readonly stop: LambdaIntegration;
  readonly events: LambdaIntegration;
  readonly report: LambdaIntegration;
}

/** `arn:…:execution:<state machine name>:*`, as StateMachine.grantExecution writes it. */
function executionsOf(stateMachine: IStateMachine): string {
  const name = Arn.split(stateMachine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName;
  return `${Stack.of(stateMachine).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: name,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  })}:*`;
}

function checkThrottling(throttling: RunApiThrottling): RunApiThrottling {
  const { rateLimit, burstLimit } = throttling;
  if (!(Number.isFinite(rateLimit) && rateLimit > 0) || !(Number.isInteger(burstLimit) && burstLimit >= 1)) {
    throw new Error(
      `RunApi throttling: got rateLimit ${rateLimit} and burstLimit ${burstLimit}, expected a rate above 0 ` +
        `requests per second and a burst of at least 1 request, e.g. ${JSON.stringify(DEFAULT_RUN_API_THROTTLING)}`,
    );
  }
  return throttling;
}

/** `async-inference` → `AsyncInference`. */
function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
