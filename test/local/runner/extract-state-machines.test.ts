/* eslint-disable @typescript-eslint/require-await -- the local handlers stand in for async step handlers */
import { describe, expect, it } from '@jest/globals';
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import {
  extractStateMachines,
  prepareRun,
  runStateMachine,
  TaskTokenBroker,
} from '../../../local/runner/index.js';
import { newStack, resolverOf, stepFunction, synthTemplate } from './cdk-fixtures.js';

let workflowTemplate: Record<string, any> | undefined;

/** Synthesized once: tests extract from it, never change it. */
function synthesizedWorkflow(): Record<string, any> {
  workflowTemplate ??= synthesizeWorkflow();
  return workflowTemplate;
}

/** A workflow touching every kind of token CDK puts in a definition: function ARNs, the partition. */
function synthesizeWorkflow(): Record<string, any> {
  const stack = newStack();
  const deploy = stepFunction(stack, 'deploy-candidate');
  const invokeAsync = stepFunction(stack, 'invoke-async');
  const chain = new tasks.LambdaInvoke(stack, 'Deploy candidate', {
    lambdaFunction: deploy,
    resultSelector: { 'endpointName.$': '$.Payload.endpointName' },
    resultPath: '$.endpoint',
    taskTimeout: sfn.Timeout.duration(Duration.minutes(5)),
  })
    .next(
      new tasks.CallAwsService(stack, 'Describe endpoint', {
        service: 'sagemaker',
        action: 'describeEndpoint',
        parameters: { EndpointName: sfn.JsonPath.stringAt('$.endpoint.endpointName') },
        iamResources: ['*'],
        resultPath: '$.described',
      }),
    )
    .next(new sfn.Wait(stack, 'Wait for endpoint', { time: sfn.WaitTime.duration(Duration.minutes(1)) }))
    .next(
      new sfn.Map(stack, 'Each input', {
        itemsPath: '$.inputs',
        maxConcurrency: 4,
        resultPath: '$.results',
      }).itemProcessor(
        new tasks.LambdaInvoke(stack, 'Invoke async and wait', {
          lambdaFunction: invokeAsync,
          integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
          payload: sfn.TaskInput.fromObject({ taskToken: sfn.JsonPath.taskToken, 'input.$': '$' }),
        }),
      ),
    );
  new sfn.StateMachine(stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(chain) });
  return synthTemplate(stack);
}

/** Replaces every ARN (and every unresolved token) by the same marker: "equal up to ARNs". */
function maskArns(value: unknown): unknown {
  if (typeof value === 'string')
    return value.startsWith('arn:') || value.includes('<token>') ? '<arn>' : value;
  if (Array.isArray(value)) return value.map(maskArns);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, maskArns(child)]));
  }
  return value;
}

/** The definition straight from the template's Fn::Join, each token replaced by a marker. */
function rawDefinition(template: Record<string, any>): unknown {
  const [stateMachine] = Object.values(template.Resources).filter(
    (resource: any) => resource.Type === 'AWS::StepFunctions::StateMachine',
  ) as any[];
  const parts: unknown[] = stateMachine.Properties.DefinitionString['Fn::Join'][1];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : '<token>')).join(''));
}

describe('extractStateMachines on a CDK template', () => {
  it('resolves the definition to the synthesized one, equal up to ARNs', () => {
    // Prepare
    const template = synthesizedWorkflow();

    // Act
    const [machine] = extractStateMachines(template);

    // Assert
    expect(maskArns(machine?.definition)).toEqual(maskArns(rawDefinition(template)));
  });

  it('puts deterministic local ARNs in place of the tokens', () => {
    // Prepare
    const template = synthesizedWorkflow();

    // Act
    const [machine] = extractStateMachines(template);

    // Assert
    const deploy = machine?.definition.States['Deploy candidate'];
    expect(deploy?.Resource).toBe('arn:aws:states:::lambda:invoke');
    expect(deploy?.Parameters).toEqual({
      FunctionName: expect.stringMatching(
        /^arn:aws:lambda:local:000000000000:function:Fndeploycandidate[0-9A-F]{8}$/,
      ),
      'Payload.$': '$',
    });
  });

  it('records the resource behind each token, with its STEP_NAME', () => {
    // Prepare
    const template = synthesizedWorkflow();

    // Act
    const [machine] = extractStateMachines(template);

    // Assert
    const references = Object.values(machine?.resources ?? {});
    expect(references.map((r) => [r.type, r.attribute, r.properties.Environment])).toEqual(
      expect.arrayContaining([
        ['AWS::Lambda::Function', 'Arn', { Variables: { STEP_NAME: 'deploy-candidate' } }],
        ['AWS::Lambda::Function', 'Arn', { Variables: { STEP_NAME: 'invoke-async' } }],
      ]),
    );
    expect(references).toHaveLength(2);
  });

  it('hands the engine the extracted definition itself, and running it leaves it unchanged', async () => {
    // Prepare
    const [machine] = extractStateMachines(synthesizedWorkflow());
    if (!machine) throw new Error('no state machine');
    const before = structuredClone(machine.definition);
    const runOptions = {
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inputs: [] },
      taskTokens: new TaskTokenBroker(),
      resolveTask: resolverOf({
        'deploy-candidate': async () => ({ endpointName: 'ep' }),
        'invoke-async': async () => ({}),
        'sagemaker:describeEndpoint': async () => ({ EndpointStatus: 'InService' }),
      }),
    };

    // Act
    const prepared = await prepareRun(runOptions);
    const result = await runStateMachine(runOptions);

    // Assert
    expect(prepared.definition).toBe(machine.definition);
    expect(result.status).toBe('SUCCEEDED');
    expect(machine.definition).toEqual(before);
  });

  it('tells the resolver which function and step each Lambda task calls', async () => {
    // Prepare
    const [machine] = extractStateMachines(synthesizedWorkflow());
    if (!machine) throw new Error('no state machine');

    // Act
    const prepared = await prepareRun({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      taskTokens: new TaskTokenBroker(),
      resolveTask: () => async () => ({}),
    });

    // Assert
    expect(
      prepared.tasks.map(({ stateName, integration, stepName, waitForTaskToken, functionLogicalId }) => ({
        stateName,
        integration,
        stepName,
        waitForTaskToken,
        functionLogicalId,
      })),
    ).toEqual([
      {
        stateName: 'Deploy candidate',
        integration: 'lambda',
        stepName: 'deploy-candidate',
        waitForTaskToken: false,
        functionLogicalId: expect.stringMatching(/^Fndeploycandidate/),
      },
      {
        stateName: 'Describe endpoint',
        integration: 'aws-sdk',
        stepName: undefined,
        waitForTaskToken: false,
        functionLogicalId: undefined,
      },
      {
        stateName: 'Invoke async and wait',
        integration: 'lambda',
        stepName: 'invoke-async',
        waitForTaskToken: true,
        functionLogicalId: expect.stringMatching(/^Fninvokeasync/),
      },
    ]);
  });

  it('overrides every Wait state and every Retry, nested ones included, without touching the definition', async () => {
    // Prepare
    const [machine] = extractStateMachines(synthesizedWorkflow());
    if (!machine) throw new Error('no state machine');

    // Act
    const prepared = await prepareRun({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      taskTokens: new TaskTokenBroker(),
      waitTimeOverrideMs: 5,
      resolveTask: () => async () => ({}),
    });

    // Assert
    expect(prepared.runOptions.overrides?.waitTimeOverrides).toEqual({ 'Wait for endpoint': 5 });
    expect(prepared.runOptions.overrides?.retryIntervalOverrides).toEqual({
      'Deploy candidate': 10,
      'Invoke async and wait': 10,
    });
    expect(machine.definition.States['Wait for endpoint']).toMatchObject({ Seconds: 60 });
  });
});

describe('extractStateMachines on hand-written templates', () => {
  function template(definitionString: unknown, extra: Record<string, unknown> = {}) {
    return {
      Resources: {
        Worker: {
          Type: 'AWS::Lambda::Function',
          Properties: { Environment: { Variables: { STEP_NAME: 'work' } } },
        },
        Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
        Machine: {
          Type: 'AWS::StepFunctions::StateMachine',
          Properties: { DefinitionString: definitionString, ...extra },
          Metadata: { 'aws:cdk:path': 'Stack/Optimization/Resource' },
        },
      },
    };
  }

  it('resolves Fn::Sub with resource attributes, Ref, pseudo parameters and escapes', () => {
    // Prepare
    const definition = {
      'Fn::Sub': [
        '{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"bucket":"${Bucket}","fn":"${Worker.Arn}","region":"${AWS::Region}","literal":"${!NotAToken}","topic":"${Topic}"},"End":true}}}',
        { Topic: { 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, 'sns']] } },
      ],
    };

    // Act
    const [machine] = extractStateMachines(template(definition));

    // Assert
    expect(machine?.definition.States.A?.Parameters).toEqual({
      bucket: 'local:Bucket:Ref',
      fn: 'arn:aws:lambda:local:000000000000:function:Worker',
      region: 'local',
      literal: '${NotAToken}',
      topic: 'arn:aws:sns',
    });
  });

  it('applies DefinitionSubstitutions', () => {
    // Prepare
    const definition = '{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"${WorkerArn}","End":true}}}';

    // Act
    const [machine] = extractStateMachines(
      template(definition, { DefinitionSubstitutions: { WorkerArn: { 'Fn::GetAtt': 'Worker.Arn' } } }),
    );

    // Assert
    expect(machine?.definition.States.A?.Resource).toBe('arn:aws:lambda:local:000000000000:function:Worker');
    expect(Object.keys(machine?.resources ?? {})).toEqual([
      'arn:aws:lambda:local:000000000000:function:Worker',
    ]);
  });

  it('names the state machine after its construct path', () => {
    // Prepare
    const definition = '{"StartAt":"A","States":{"A":{"Type":"Succeed"}}}';

    // Act
    const [machine] = extractStateMachines(template(definition));

    // Assert
    expect(machine).toMatchObject({ logicalId: 'Machine', name: 'Optimization' });
  });

  it('fails when the definition uses an intrinsic function it cannot resolve, naming it', () => {
    // Prepare
    const definition = { 'Fn::Join': ['', ['{"StartAt":"', { 'Fn::ImportValue': 'SharedName' }, '"}']] };

    // Act
    const extract = () => extractStateMachines(template(definition));

    // Assert
    expect(extract).toThrow(/State machine Machine: cannot resolve intrinsic function Fn::ImportValue/);
  });

  it('fails when a token references a resource missing from the template', () => {
    // Prepare
    const definition = { 'Fn::Join': ['', ['{"StartAt":"', { 'Fn::GetAtt': ['Ghost', 'Arn'] }, '"}']] };

    // Act
    const extract = () => extractStateMachines(template(definition));

    // Assert
    expect(extract).toThrow(/Fn::GetAtt references Ghost, which is not a resource of the template/);
  });

  it('fails when a pseudo parameter has no local value', () => {
    // Prepare
    const definition = { 'Fn::Join': ['', ['{"StartAt":"', { Ref: 'AWS::StackName' }, '"}']] };

    // Act
    const extract = () => extractStateMachines(template(definition));

    // Assert
    expect(extract).toThrow(/cannot resolve pseudo parameter Ref AWS::StackName/);
  });

  it('fails when the resolved text is not a state machine definition', () => {
    // Prepare
    const definition = '{"States":{}}';

    // Act
    const extract = () => extractStateMachines(template(definition));

    // Assert
    expect(extract).toThrow(
      /State machine Machine is not a state machine definition: expected an object with StartAt/,
    );
  });
});
