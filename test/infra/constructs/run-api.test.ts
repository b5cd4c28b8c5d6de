import { describe, expect, it } from '@jest/globals';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  type ApiLogging,
  ApiLoggingModes,
  type RunApiProps,
  RunApi,
} from '../../../infra/constructs/run-api.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf } from '../policy-grants.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** The run API alone, on a stack without the workflows, against imported state machines. */
function buildRunApi(
  props: Partial<Omit<RunApiProps, 'optimization' | 'lambdas'>> & { withAsync?: boolean } = {},
) {
  const { withAsync = true, ...rest } = props;
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'RunApiTest', { env: TEST_ENV, includeWorkflows: false });
  const optimization = StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN);
  const asyncInference = withAsync
    ? StateMachine.fromStateMachineArn(stack, 'AsyncInference', ASYNC_ARN)
    : undefined;
  const runApi = new RunApi(stack, 'RunApi', {
    lambdas: stack,
    optimization,
    ...(asyncInference === undefined ? {} : { asyncInference }),
    ...rest,
  });
  const template = Template.fromStack(stack);
  return { stack, runApi, template, resources: template.toJSON().Resources as Resources };
}

function ofType(resources: Resources, type: string) {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

describe('RunApi', () => {
  describe('with both workflows', () => {
    const { stack, runApi, template, resources } = buildRunApi();
    const methods = ofType(resources, 'AWS::ApiGateway::Method');
    const apiId = logicalIdOf(stack, runApi.api);
    const resourceId = (path: string) => {
      const found = ofType(resources, 'AWS::ApiGateway::Resource').find(
        ([, resource]) => resource.Properties.PathPart === path,
      );
      if (found === undefined) throw new Error(`no API resource ${path}`);
      return found[0];
    };
    const method = (httpMethod: string, path: string) => {
      const found = methods.find(
        ([, m]) =>
          m.Properties.HttpMethod === httpMethod &&
          JSON.stringify(m.Properties.ResourceId) === JSON.stringify({ Ref: path }),
      );
      if (found === undefined) throw new Error(`no method ${httpMethod} on ${path}`);
      return found[1].Properties;
    };
    /** `/runs/{id}/stop` of an API resource's logical id, from its chain of parents. */
    const pathOf = (logicalId: string): string => {
      const resource = resources[logicalId]?.Properties;
      const parent = resource?.ParentId as { Ref?: string } | undefined;
      const prefix = parent?.Ref === undefined ? '' : pathOf(parent.Ref);
      return `${prefix}/${String(resource?.PathPart)}`;
    };
    /** Each method as `VERB /path`, sorted. */
    const routes = methods
      .map(
        ([, m]) =>
          `${String(m.Properties.HttpMethod)} ${pathOf((m.Properties.ResourceId as { Ref: string }).Ref)}`,
      )
      .sort();
    const runsId = resourceId('runs');
    const asyncRunsId = resourceId('async-runs');
    const startRuns = method('POST', runsId);
    const startAsyncRuns = method('POST', asyncRunsId);

    it('requires IAM (SigV4) authorization on every method', () => {
      // Act
      const authorizations = methods.map(
        ([, m]) => `${String(m.Properties.HttpMethod)} ${String(m.Properties.AuthorizationType)}`,
      );

      // Assert
      expect(authorizations).toEqual(methods.map(() => expect.stringMatching(/ AWS_IAM$/)));
      expect(routes).toEqual(
        ['runs', 'async-runs']
          .flatMap((resource) => [
            `GET /${resource}`,
            `GET /${resource}/{id}`,
            `GET /${resource}/{id}/events`,
            `GET /${resource}/{id}/report`,
            `POST /${resource}`,
            `POST /${resource}/{id}/stop`,
          ])
          .concat(['POST /runs/plan'])
          .sort(),
      );
    });

    it('is a regional REST API named after the stack', () => {
      // Assert
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        Name: 'RunApiTest-runs',
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
    });

    it('checks the GET path parameter, and leaves POST bodies to start-run, which documents them with the generated models', () => {
      // Prepare
      const [[validatorId, validator] = ['', { Properties: {} }]] = ofType(
        resources,
        'AWS::ApiGateway::RequestValidator',
      );

      // Assert
      expect(validator.Properties).toEqual({
        RestApiId: { Ref: apiId },
        ValidateRequestBody: false,
        ValidateRequestParameters: true,
      });
      const getId = resourceId('{id}');
      expect(method('GET', getId).RequestValidatorId).toEqual({ Ref: validatorId });
      expect(startRuns.RequestValidatorId).toBeUndefined();
      expect(startRuns.RequestModels).toEqual({
        'application/json': { Ref: logicalIdOf(stack, runApi.routes.optimization?.requestModel ?? runApi) },
      });
      expect(startAsyncRuns.RequestModels).toEqual({
        'application/json': {
          Ref: logicalIdOf(stack, runApi.routes['async-inference']?.requestModel ?? runApi),
        },
      });
      expect(method('GET', getId).RequestParameters).toEqual({ 'method.request.path.id': true });
    });

    it('models POST /runs from the optimization run-input schema', () => {
      // Act
      const model =
        resources[logicalIdOf(stack, runApi.routes.optimization?.requestModel ?? runApi)]?.Properties;

      // Assert
      expect(model).toMatchObject({
        ContentType: 'application/json',
        Schema: {
          $schema: 'http://json-schema.org/draft-04/schema#',
          required: ['input'],
          additionalProperties: false,
          properties: {
            runId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,80}$' },
            input: {
              required: ['loadPlan', 'sla'],
              properties: {
                loadPlan: expect.objectContaining({ type: 'object' }),
                sla: expect.objectContaining({ type: 'object' }),
              },
            },
          },
        },
      });
    });

    it('models POST /async-runs from the async-inference run-input schema', () => {
      // Act
      const model =
        resources[logicalIdOf(stack, runApi.routes['async-inference']?.requestModel ?? runApi)]?.Properties;

      // Assert
      expect(model).toMatchObject({
        Schema: {
          properties: {
            input: { properties: { endpointName: expect.objectContaining({ pattern: expect.any(String) }) } },
          },
        },
      });
    });

    it('answers POST /runs and POST /async-runs with the start-run Lambda (proxy)', () => {
      // Prepare
      const fnArn = { 'Fn::GetAtt': [logicalIdOf(stack, runApi.startRun), 'Arn'] };

      // Act
      const posts = [startRuns.Integration, startAsyncRuns.Integration];

      // Assert
      const proxy = {
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
        Uri: {
          'Fn::Join': [
            '',
            ['arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/', fnArn, '/invocations'],
          ],
        },
      };
      expect(posts).toEqual([proxy, proxy]);
    });

    it('lets the start-run Lambda start executions of the two state machines and nothing else', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, runApi.startRun.serviceRole));

      // Assert
      const logGroup = logicalIdOf(stack, runApi.startRun.functionLogGroup);
      expect(grants).toEqual(
        [
          `Allow states:StartExecution on ${ASYNC_ARN}`,
          `Allow states:StartExecution on ${OPTIMIZATION_ARN}`,
          `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
          `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('tells the start-run Lambda the state machines’ ARNs', () => {
      // Assert
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            STEP_NAME: 'start-run',
            OPTIMIZATION_STATE_MACHINE_ARN: OPTIMIZATION_ARN,
            ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_ARN,
          }),
        },
      });
    });

    it('answers GET /runs/{id} and GET /async-runs/{id} with the describe-run Lambda (proxy)', () => {
      // Prepare
      const fnArn = { 'Fn::GetAtt': [logicalIdOf(stack, runApi.describeRun), 'Arn'] };

      // Act
      const gets = methods
        .filter(([, m]) => m.Properties.HttpMethod === 'GET')
        .filter(([, m]) => pathOf((m.Properties.ResourceId as { Ref: string }).Ref).endsWith('/{id}'))
        .map(([, m]) => m.Properties.Integration);

      // Assert
      const proxy = {
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
        Uri: {
          'Fn::Join': [
            '',
            ['arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/', fnArn, '/invocations'],
          ],
        },
      };
      expect(gets).toEqual([proxy, proxy]);
    });

    it('lets each route invoke its own Lambda, and nothing else invoke them', () => {
      // Act
      const permissions = ofType(resources, 'AWS::Lambda::Permission').map(([, p]) => p.Properties);

      // Assert
      const lambdaOf = (p: Record<string, unknown>) =>
        (p.FunctionName as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const routeOf = (p: Record<string, unknown>) =>
        String((p.SourceArn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1].at(-1));
      const id = (fn: { functionArn: string }) => logicalIdOf(stack, fn as never);
      expect(permissions.map((p) => `${routeOf(p)} ${lambdaOf(p)}`).sort()).toEqual(
        ['runs', 'async-runs']
          .flatMap((resource) => [
            `/POST/${resource} ${id(runApi.startRun)}`,
            `/GET/${resource}/* ${id(runApi.describeRun)}`,
            `/GET/${resource} ${id(runApi.listRuns)}`,
            `/POST/${resource}/*/stop ${id(runApi.stopRun)}`,
            `/GET/${resource}/*/events ${id(runApi.runEvents)}`,
            `/GET/${resource}/*/report ${id(runApi.runReport)}`,
          ])
          .concat([`/POST/runs/plan ${id(runApi.planRun)}`])
          .sort(),
      );
      for (const permission of permissions) {
        expect(permission).toMatchObject({
          Action: 'lambda:InvokeFunction',
          Principal: 'apigateway.amazonaws.com',
        });
      }
    });

    it('answers POST /runs/plan with the plan-run Lambda (proxy), documented by the POST /runs model', () => {
      // Prepare
      const fnArn = { 'Fn::GetAtt': [logicalIdOf(stack, runApi.planRun), 'Arn'] };

      // Act
      const plan = method('POST', resourceId('plan'));

      // Assert
      expect([plan.Integration, plan.RequestModels]).toEqual([
        {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: {
            'Fn::Join': [
              '',
              ['arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/', fnArn, '/invocations'],
            ],
          },
        },
        startRuns.RequestModels,
      ]);
    });

    it('grants the plan-run Lambda the reads of "Validate and plan" and nothing that writes or starts', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, runApi.planRun.serviceRole));

      // Assert
      const bucket = logicalIdOf(stack, stack.artifactsBucket);
      const key = logicalIdOf(stack, stack.encryptionKey);
      const logGroup = logicalIdOf(stack, runApi.planRun.functionLogGroup);
      expect(grants).toEqual(
        [
          `Allow kms:Decrypt on <${key}.Arn> if {"StringEquals":{"kms:ViaService":"s3.us-east-1.amazonaws.com"}}`,
          `Allow s3:GetObject on <${bucket}.Arn>/models/*`,
          `Allow s3:GetObject on <${bucket}.Arn>/runs/*`,
          // The day's copy of the prices, read and never written by the plan route.
          `Allow s3:GetObject on <${bucket}.Arn>/catalog/prices/*`,
          `Allow s3:ListBucket on <${bucket}.Arn> if {"StringLike":{"s3:prefix":["models/*","runs/*","catalog/prices/*"]}}`,
          'Allow pricing:GetProducts on *',
          'Allow ec2:DescribeInstanceTypes on *',
          'Allow servicequotas:ListAWSDefaultServiceQuotas on *',
          'Allow servicequotas:ListServiceQuotas on *',
          `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
          `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('lets the describe-run Lambda read the executions of the two state machines and nothing else', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, runApi.describeRun.serviceRole));

      // Assert
      const logGroup = logicalIdOf(stack, runApi.describeRun.functionLogGroup);
      const executions = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:${name}:*`;
      expect(grants).toEqual(
        [
          ...['states:DescribeExecution', 'states:GetExecutionHistory'].flatMap((action) => [
            `Allow ${action} on ${executions('AsyncInference')}`,
            `Allow ${action} on ${executions('Optimization')}`,
          ]),
          `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
          `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
          'Allow xray:PutTelemetryRecords on *',
          'Allow xray:PutTraceSegments on *',
        ].sort(),
      );
    });

    it('lets each new route’s Lambda do only its own Step Functions calls, on the two state machines', () => {
      // Prepare
      const executions = (name: string) => `arn:aws:states:us-east-1:123456789012:execution:${name}:*`;
      const stateSide = (fn: typeof runApi.listRuns) =>
        grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter((grant) => grant.includes('states:'));

      // Act
      const granted = {
        list: stateSide(runApi.listRuns),
        stop: stateSide(runApi.stopRun),
        events: stateSide(runApi.runEvents),
        report: stateSide(runApi.runReport),
      };

      // Assert
      const onBoth = (action: string) => [
        `Allow ${action} on ${executions('AsyncInference')}`,
        `Allow ${action} on ${executions('Optimization')}`,
      ];
      expect(granted).toEqual({
        list: [
          `Allow states:ListExecutions on ${ASYNC_ARN}`,
          `Allow states:ListExecutions on ${OPTIMIZATION_ARN}`,
        ],
        stop: [...onBoth('states:DescribeExecution'), ...onBoth('states:StopExecution')],
        events: onBoth('states:GetExecutionHistory'),
        report: onBoth('states:DescribeExecution'),
      });
    });

    it('lets the run-report Lambda read runs/ of the artifacts bucket and decrypt through S3, nothing more', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, runApi.runReport.serviceRole)).filter(
        (grant) => grant.includes(' s3:') || grant.includes(' kms:'),
      );

      // Assert
      const bucket = logicalIdOf(stack, stack.artifactsBucket);
      const key = logicalIdOf(stack, stack.encryptionKey);
      expect(grants).toEqual([
        `Allow kms:Decrypt on <${key}.Arn> if {"StringEquals":{"kms:ViaService":"s3.us-east-1.amazonaws.com"}}`,
        `Allow s3:GetObject on <${bucket}.Arn>/runs/*`,
        `Allow s3:ListBucket on <${bucket}.Arn> if {"StringLike":{"s3:prefix":["runs/*"]}}`,
      ]);
    });

    it('tells the describe-run Lambda the state machines’ ARNs', () => {
      // Act
      const fn = resources[logicalIdOf(stack, runApi.describeRun)]?.Properties;

      // Assert
      expect(fn?.Environment).toEqual({
        Variables: expect.objectContaining({
          STEP_NAME: 'describe-run',
          OPTIMIZATION_STATE_MACHINE_ARN: OPTIMIZATION_ARN,
          ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_ARN,
        }),
      });
      expect(fn?.Timeout).toBe(20);
    });

    it('throttles and traces the stage, and logs nothing that needs the account’s CloudWatch role', () => {
      // Act
      const [[, stage] = ['', { Properties: {} as Record<string, unknown> }]] = ofType(
        resources,
        'AWS::ApiGateway::Stage',
      );

      // Assert
      expect(stage.Properties).toMatchObject({
        StageName: 'v1',
        TracingEnabled: true,
        MethodSettings: [
          {
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 10,
            ThrottlingBurstLimit: 20,
            MetricsEnabled: true,
          },
        ],
      });
      expect(stage.Properties.AccessLogSetting).toBeUndefined();
      expect(JSON.stringify(stage.Properties.MethodSettings)).not.toContain('LoggingLevel');
      expect(runApi.accessLogs).toBeUndefined();
    });

    it('leaves the account’s API Gateway CloudWatch role alone by default', () => {
      // Assert
      expect(ofType(resources, 'AWS::ApiGateway::Account')).toEqual([]);
      expect(JSON.stringify(template.toJSON())).not.toContain('AmazonAPIGatewayPushToCloudWatchLogs');
    });

    it('outputs the API URL once, as RunApiUrl', () => {
      // Act
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

      // Assert
      expect(Object.keys(outputs).filter((name) => name.startsWith('RunApi'))).toEqual(['RunApiUrl']);
      expect(JSON.stringify(outputs.RunApiUrl?.Value)).toContain('.execute-api.us-east-1.');
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  describe('logging with the account’s existing CloudWatch role', () => {
    const { stack, runApi, resources } = buildRunApi({ logging: ApiLoggingModes.useAccountRole });
    const [[, stage] = ['', { Properties: {} as Record<string, unknown> }]] = ofType(
      resources,
      'AWS::ApiGateway::Stage',
    );

    it('logs errors without request or response bodies', () => {
      // Assert
      expect(stage.Properties.MethodSettings).toEqual([
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
      ]);
    });

    it('writes JSON access logs with the caller, status and latency, never a body, kept a year', () => {
      // Prepare
      const { Format: format, DestinationArn: destination } = stage.Properties.AccessLogSetting as {
        Format: string;
        DestinationArn: unknown;
      };
      const accessLogs = runApi.accessLogs;
      if (accessLogs === undefined) throw new Error('expected an access log group with logging on');

      // Act
      const line = JSON.parse(format.replace('$context.error.messageString', '"error text"')) as Record<
        string,
        string
      >;

      // Assert
      expect(line).toMatchObject({
        requestId: '$context.requestId',
        callerArn: '$context.identity.userArn',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
        integrationLatencyMs: '$context.integration.latency',
      });
      expect(format).not.toMatch(/body|\$input/i);
      expect(JSON.stringify(destination)).toContain(logicalIdOf(stack, accessLogs));
      expect(resources[logicalIdOf(stack, accessLogs)]?.Properties).toEqual({ RetentionInDays: 365 });
    });

    it('does not set the account’s role', () => {
      // Assert
      expect(ofType(resources, 'AWS::ApiGateway::Account')).toEqual([]);
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  describe('logging with a role the stack sets as the account’s', () => {
    const { stack, template, resources } = buildRunApi({ logging: ApiLoggingModes.setAccountRole });

    it('sets the account’s API Gateway logging role with the AWS managed policy, retained with the stack gone', () => {
      // Act
      const accounts = ofType(resources, 'AWS::ApiGateway::Account');

      // Assert
      expect(accounts).toHaveLength(1);
      template.hasResource('AWS::IAM::Role', {
        Properties: {
          ManagedPolicyArns: [
            {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
                ],
              ],
            },
          ],
        },
        DeletionPolicy: 'Retain',
      });
    });

    it('logs errors and access', () => {
      // Assert
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [Match.objectLike({ LoggingLevel: 'ERROR' })],
        AccessLogSetting: Match.objectLike({ Format: Match.anyValue() }),
      });
    });

    it('has no unacknowledged AwsSolutions findings', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  describe('with the async workflow’s planning', () => {
    const granted: string[] = [];
    const { stack, runApi, template, resources } = buildRunApi({
      asyncPlanning: {
        lambda: {
          readsArtifacts: ['inputs/', 'runs/'],
          environment: { ASYNC_SUCCESS_TOPIC_ARN: 'arn:topic' },
        },
        grant: (fn) => {
          granted.push(fn.stepName);
        },
      },
    });

    it('answers POST /async-runs/plan with the same plan-run Lambda', () => {
      // Act
      const plans = ofType(resources, 'AWS::Lambda::Permission')
        .map(([, p]) => p.Properties)
        .filter((p) => JSON.stringify(p.SourceArn).includes('/plan'))
        .map((p) => String((p.SourceArn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1].at(-1)));

      // Assert
      expect(plans.sort()).toEqual(['/POST/async-runs/plan', '/POST/runs/plan']);
    });

    it('gives the plan-run Lambda the async planning’s reads, variables and grants beside the optimization’s', () => {
      // Act
      const reads = grantsOf(template, logicalIdOf(stack, runApi.planRun.serviceRole)).filter((grant) =>
        grant.includes(' s3:GetObject'),
      );

      // Assert
      const bucket = logicalIdOf(stack, stack.artifactsBucket);
      expect(reads).toEqual([
        `Allow s3:GetObject on <${bucket}.Arn>/catalog/prices/*`,
        `Allow s3:GetObject on <${bucket}.Arn>/inputs/*`,
        `Allow s3:GetObject on <${bucket}.Arn>/models/*`,
        `Allow s3:GetObject on <${bucket}.Arn>/runs/*`,
      ]);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp('^Run API: the plan of a run'),
        Environment: { Variables: Match.objectLike({ ASYNC_SUCCESS_TOPIC_ARN: 'arn:topic' }) },
      });
      expect(granted).toEqual(['plan-run']);
    });
  });

  describe('with the optimization workflow only', () => {
    const { runApi, template, resources } = buildRunApi({
      withAsync: false,
      throttling: { rateLimit: 2, burstLimit: 5 },
      stageName: 'prod',
    });

    it('has only the /runs routes and no async state machine for the Lambda', () => {
      // Act
      const paths = ofType(resources, 'AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart);

      // Assert
      expect(paths.sort()).toEqual(['events', 'plan', 'report', 'runs', 'stop', '{id}']);
      expect(runApi.routes['async-inference']).toBeUndefined();
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ ASYNC_INFERENCE_STATE_MACHINE_ARN: Match.absent() }) },
      });
    });

    it('applies the throttling and stage name it is given', () => {
      // Assert
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'prod',
        MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 })],
      });
    });
  });

  it('refuses a logging mode it does not know, naming the accepted ones', () => {
    // Act
    const act = () => buildRunApi({ logging: 'on' as ApiLogging });

    // Assert
    expect(act).toThrow('RunApi logging: got "on", expected one of off, use-account-role, set-account-role');
  });

  it('fails when the throttling has no positive rate', () => {
    // Act
    const act = () => buildRunApi({ throttling: { rateLimit: 0, burstLimit: 10 } });

    // Assert
    expect(act).toThrow(
      'RunApi throttling: got rateLimit 0 and burstLimit 10, expected a rate above 0 requests per second and a burst of at least 1 request',
    );
  });
});
