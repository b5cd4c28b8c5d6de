import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Stack, aws_sagemaker as sagemaker } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CompilationOutcomes,
  type CompilationState,
  type PackagedModel,
  type PlannedCandidate,
  type RunPlan,
} from '../../../core/contracts/optimization-state.js';
import { deployCandidate } from '../../../core/steps/optimization/deploy-candidate.js';
import { buildReport } from '../../../core/report/build-report.js';
import { type CandidateDeploy, candidateDeploy } from '../../../core/report/deploy-requests.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import type { Report } from '../../../core/report/report.js';
import { cdkSnippet, deployBlocks, deployFacts, sdkSnippet } from '../../../core/report/render-deploy.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { SageMakerModelHost } from '../../../lambdas/adapters/sagemaker-model-host.js';
import { createTestApp } from '../../infra/app.js';
import { sampleReport } from '../../../bench/fixtures/sample-report.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

// The CDK snippets users copy must not call a deprecated aws-cdk-lib API: in "fail" mode jsii's
// deprecation check throws where it would print a warning (once per process).
let deprecationMode: string | undefined;
beforeAll(() => {
  deprecationMode = process.env['JSII_DEPRECATED'];
  process.env['JSII_DEPRECATED'] = 'fail';
});
afterAll(() => {
  if (deprecationMode === undefined) delete process.env['JSII_DEPRECATED'];
  else process.env['JSII_DEPRECATED'] = deprecationMode;
});

const RUN_ID = 'deploy-report';
const REGION = 'us-east-1';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';
const MODEL_URI = 's3://mso-artifacts/models/cnn/model.onnx';
const PAYLOAD_URI = 's3://mso-artifacts/models/cnn/payload.json';
const PACKAGED_URI = `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`;
const COMPILED_URI = `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/model-ml_c5.tar.gz`;
const MODEL_IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/mso-model-server:1';
/** What DescribeCompilationJob names as `InferenceImage` for an ONNX model compiled for ml_c5. */
const NEO_IMAGE = '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3';

const PACKAGED: PackagedModel = { modelDataUrl: PACKAGED_URI, reused: false };
const COMPILATIONS: readonly CompilationState[] = [
  {
    target: 'ml_c5',
    jobName: 'job-ml_c5',
    status: CompilationOutcomes.completed,
    waitSeconds: 30,
    deadlineEpochMs: 0,
    artifactUri: COMPILED_URI,
    inferenceImage: NEO_IMAGE,
  },
];

function runInput(model: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      image: MODEL_IMAGE,
      ...model,
    },
    payload: { uri: PAYLOAD_URI },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { id: 'cpu', instanceType: 'ml.c5.xlarge', environment: { OMP_NUM_THREADS: '4' } },
      { id: 'cpu-neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
      { id: 'serverless', serverless: { memorySizeMb: 2048, maxConcurrency: 5 } },
    ],
    loadPlan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 2 },
    sla: { p95LatencyMs: 50 },
  };
}

function plan(input: unknown): Promise<RunPlan> {
  const store = new MemoryObjectStore().seed(MODEL_URI, 'onnx bytes').seed(PAYLOAD_URI, '{"inputs":[[0]]}');
  return validateAndPlan(
    { runId: RUN_ID, input },
    { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger },
  );
}

function candidateOf(runPlan: RunPlan, id: string): PlannedCandidate {
  const candidate = runPlan.candidates.find((c) => c.id === id);
  if (candidate === undefined) throw new Error(`no candidate ${id} in the plan`);
  return candidate;
}

function deployOf(runPlan: RunPlan, id: string, measuredLocally = false): CandidateDeploy {
  const shown = candidateDeploy(
    runPlan,
    candidateOf(runPlan, id),
    { packagedModel: PACKAGED, compilations: COMPILATIONS, region: REGION },
    measuredLocally,
  );
  if (!('deploy' in shown)) throw new Error(`candidate ${id} has no deploy: ${shown.deployNote}`);
  return shown.deploy;
}

/** The snippet without its import lines: plain JavaScript over the names the imports bring. */
function bodyOf(snippet: string): string {
  return snippet
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n');
}

const sagemakerMock = mockClient(SageMakerClient);

describe('candidateDeploy', () => {
  beforeEach(() => {
    sagemakerMock.reset();
    sagemakerMock.onAnyCommand().resolves({});
  });

  it('shows the requests the deploy step sent, with the names, the role and the tags left to the user', async () => {
    // Prepare
    const runPlan = await plan(runInput());
    const candidate = candidateOf(runPlan, 'cpu-neo');
    const host = new SageMakerModelHost({ client: new SageMakerClient({}), executionRoleArn: ROLE_ARN });
    await deployCandidate(
      { plan: runPlan, candidate, packagedModel: PACKAGED, compilations: COMPILATIONS },
      {
        host,
        region: REGION,
        logger: silentLogger,
        pollSeconds: 30,
        maxPollSeconds: 120,
        nowEpochMs: () => 0,
        loadStartDelaySeconds: 0,
      },
    );
    const tags = [
      { Key: 'mso:candidate-id', Value: 'cpu-neo' },
      { Key: 'mso:project', Value: 'model-serving-optimizer' },
      { Key: 'mso:run-id', Value: RUN_ID },
    ];

    // Act
    const deploy = deployOf(runPlan, 'cpu-neo');

    // Assert: filled in, the report's requests are the SDK inputs the workflow sent.
    expect(sagemakerMock.commandCalls(CreateModelCommand)[0]?.args[0].input).toEqual({
      ...deploy.createModel,
      ModelName: candidate.modelName,
      ExecutionRoleArn: ROLE_ARN,
      Tags: tags,
    });
    expect(sagemakerMock.commandCalls(CreateEndpointConfigCommand)[0]?.args[0].input).toEqual({
      ...deploy.createEndpointConfig,
      EndpointConfigName: candidate.endpointConfigName,
      ProductionVariants: deploy.createEndpointConfig.ProductionVariants.map((variant) => ({
        ...variant,
        ModelName: candidate.modelName,
      })),
      Tags: tags,
    });
    expect(sagemakerMock.commandCalls(CreateEndpointCommand)[0]?.args[0].input).toEqual({
      EndpointName: candidate.endpointName,
      EndpointConfigName: candidate.endpointConfigName,
      Tags: tags,
    });
    expect(deploy.createEndpoint).toEqual({
      EndpointName: '<endpoint-name>',
      EndpointConfigName: '<endpoint-config-name>',
    });
  });

  it('names the compiled artifact and the image its compilation job named', async () => {
    // Prepare
    const runPlan = await plan(runInput());

    // Act
    const deploy = deployOf(runPlan, 'cpu-neo');

    // Assert
    expect(deploy.createModel).toEqual({
      ModelName: '<model-name>',
      ExecutionRoleArn: '<sagemaker-execution-role-arn>',
      PrimaryContainer: { Image: NEO_IMAGE, ModelDataUrl: COMPILED_URI, Environment: {} },
    });
    expect(deploy.createEndpointConfig).toEqual({
      EndpointConfigName: '<endpoint-config-name>',
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: '<model-name>',
          InstanceType: 'ml.c5.xlarge',
          InitialInstanceCount: 1,
        },
      ],
    });
    expect(deploy.imageSource).toBe('compilation job InferenceImage');
  });

  it('shows a Hugging Face Hub model without model data: Hub settings in Environment, no ModelDataUrl', async () => {
    // Prepare: a Hub model has no artifact and is not packaged.
    const runPlan = await validateAndPlan(
      {
        runId: RUN_ID,
        input: {
          model: {
            framework: 'huggingface',
            frameworkVersion: '4.49.0',
            pytorchVersion: '2.6.0',
            hub: { modelId: 'distilbert/distilbert-base-uncased', task: 'fill-mask' },
          },
          payload: { uri: PAYLOAD_URI },
          candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
          loadPlan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 2 },
          sla: { p95LatencyMs: 50 },
        },
      },
      {
        store: new MemoryObjectStore().seed(PAYLOAD_URI, '{"inputs":"a [MASK]"}'),
        artifactsBucket: 'mso-artifacts',
        allowFileUris: false,
        logger: silentLogger,
      },
    );

    // Act
    const shown = candidateDeploy(
      runPlan,
      candidateOf(runPlan, 'cpu'),
      { packagedModel: { reused: true }, compilations: [], region: REGION },
      false,
    );

    // Assert
    if (!('deploy' in shown)) throw new Error(`no deploy: ${shown.deployNote}`);
    const image =
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-cpu-py312-ubuntu22.04';
    expect(shown.deploy.createModel).toEqual({
      ModelName: '<model-name>',
      ExecutionRoleArn: '<sagemaker-execution-role-arn>',
      PrimaryContainer: {
        Image: image,
        Environment: { HF_MODEL_ID: 'distilbert/distilbert-base-uncased', HF_TASK: 'fill-mask' },
      },
    });
    expect(cdkSnippet(shown.deploy)).not.toContain('modelDataUrl');
    expect(deployFacts(shown.deploy)[0]).toBe(
      `Image ${image} (table: huggingface 4.49.0 uncompiled on x86 CPU (SageMaker Python SDK huggingface.json)); ` +
        'no model data: the container downloads the Hugging Face Hub model HF_MODEL_ID names.',
    );
  });

  it('says an existing endpoint has nothing to deploy', async () => {
    // Prepare
    const runPlan = await plan(runInput());
    const existing: PlannedCandidate = { ...candidateOf(runPlan, 'cpu'), kind: 'existing' };

    // Act
    const shown = candidateDeploy(
      runPlan,
      existing,
      { packagedModel: PACKAGED, compilations: COMPILATIONS, region: REGION },
      false,
    );

    // Assert
    expect(shown).toEqual({
      deployNote: 'an existing endpoint: the run tested it as it is and created nothing',
    });
  });

  it('says a candidate whose compilation failed deployed nothing, and why', async () => {
    // Prepare
    const runPlan = await plan(runInput());
    const failed: CompilationState = {
      target: 'ml_c5',
      jobName: 'job-ml_c5',
      status: CompilationOutcomes.failed,
      waitSeconds: 30,
      deadlineEpochMs: 0,
      failureReason: 'ClientError: unsupported operator',
    };

    // Act
    const shown = candidateDeploy(
      runPlan,
      candidateOf(runPlan, 'cpu-neo'),
      { packagedModel: PACKAGED, compilations: [failed], region: REGION },
      false,
    );

    // Assert
    expect(shown).toEqual({
      deployNote: 'nothing was deployed: compilation for ml_c5 failed: ClientError: unsupported operator',
    });
  });

  it('gives a local run’s compiled candidate the Neo image the table has for it on AWS', async () => {
    // Prepare
    const runPlan = await plan(runInput({ image: 'local' }));

    // Act
    const deploy = deployOf(runPlan, 'cpu-neo', true);

    // Assert
    expect(deploy.onAws).toEqual({
      imageUri: expect.stringMatching(/^\d{12}\.dkr\.ecr\.us-east-1\.amazonaws\.com\/sagemaker-neo-onnx:/),
      source: expect.stringMatching(/^table: onnx .* compiled for x86 CPU/),
    });
  });

  it('says a local run’s uncompiled ONNX candidate has no AWS image, and what to do', async () => {
    // Prepare
    const runPlan = await plan(runInput({ image: 'local' }));

    // Act
    const deploy = deployOf(runPlan, 'cpu', true);

    // Assert
    expect(deploy.createModel.PrimaryContainer.Image).toBe('local');
    expect(deploy.onAws).toEqual({
      note: expect.stringMatching(
        /^the local image has no AWS equivalent in the image table: No serving image for onnx uncompiled on ml\.c5\.xlarge in us-east-1: .*ONNX has no first-party SageMaker serving container/,
      ),
    });
  });

  it('shows a local run’s model data as its file, the requests keeping the URI', async () => {
    // Prepare
    const runPlan = await plan(runInput({ image: 'local' }));
    const deploy = { ...deployOf(runPlan, 'cpu-neo', true), modelDataFile: 'model/model.tar.gz' };

    // Act
    const facts = deployFacts(deploy);

    // Assert
    expect(facts[0]).toMatch(
      /^Image \d{12}\.dkr\.ecr\.us-east-1\.amazonaws\.com\/sagemaker-neo-onnx:\S+ \(table: onnx .*\); model data model\/model\.tar\.gz \(\S+ in the requests\)\.$/,
    );
  });

  it('shows a local run’s requests and code with the AWS image it would use, never the local one', async () => {
    // Prepare
    const runPlan = await plan(runInput({ image: 'local' }));
    const onAws = {
      imageUri: '763104351884.dkr.ecr.us-east-1.amazonaws.com/onnx-inference:1.17.0-cpu',
      source: 'table: onnx on CPU',
    };
    const deploy = { ...deployOf(runPlan, 'cpu', true), onAws };

    // Act
    const blocks = deployBlocks(deploy);

    // Assert
    expect(blocks.map((block) => block.title)).toEqual([
      'CreateModel (JSON)',
      'CreateEndpointConfig (JSON)',
      'CreateEndpoint (JSON)',
      'AWS SDK for JavaScript v3',
      'CDK (aws-cdk-lib)',
    ]);
    expect(JSON.parse(blocks[0]?.code ?? '{}')).toMatchObject({
      PrimaryContainer: { Image: onAws.imageUri },
    });
    for (const block of blocks) expect(block.code).not.toMatch(/"local"|'local'/);
    for (const block of [blocks[0], blocks[3], blocks[4]]) expect(block?.code).toContain(onAws.imageUri);
    expect(deploy.createModel.PrimaryContainer.Image).toBe('local');
  });

  it('shows no requests or code for a local run’s candidate that has no AWS image, and says why', async () => {
    // Prepare
    const runPlan = await plan(runInput({ image: 'local' }));
    const deploy = deployOf(runPlan, 'cpu', true);

    // Act
    const [blocks, facts] = [deployBlocks(deploy), deployFacts(deploy)];

    // Assert
    expect(blocks).toEqual([]);
    expect(facts[0]).toMatch(/^Measured locally: the local image has no AWS equivalent in the image table: /);
    expect(facts[1]).toBe(
      'No requests to show: SageMaker cannot pull the local model server’s image, and the image table names none for this candidate on AWS.',
    );
  });

  it('puts each candidate’s requests in the report when the deploy step’s inputs are given', async () => {
    // Prepare
    const runPlan = await plan(runInput());

    // Act
    const report = buildReport({
      plan: runPlan,
      outcomes: runPlan.candidates.map((c) => ({ candidateId: c.id, status: 'FAILED' as const })),
      results: new Map(),
      measuredLocally: false,
      generatedAt: '2026-11-24T12:00:00.000Z',
      deployment: { packagedModel: PACKAGED, compilations: COMPILATIONS, region: REGION },
    });

    // Assert
    expect(report.candidates.map((c) => c.deploy)).toEqual([
      deployOf(runPlan, 'cpu'),
      deployOf(runPlan, 'cpu-neo'),
      deployOf(runPlan, 'serverless'),
    ]);
  });
});

describe('sdkSnippet', () => {
  it('sends the report’s three requests, in order', async () => {
    // Prepare: the snippet's body over stand-ins for the client and the commands.
    const deploy = deployOf(await plan(runInput()), 'cpu');
    const sent: { command: string; input: unknown }[] = [];
    const regions: unknown[] = [];
    const command = (name: string) =>
      class {
        constructor(readonly input: unknown) {
          sent.push({ command: name, input });
        }
      };
    class Client {
      constructor(config: { region: unknown }) {
        regions.push(config.region);
      }
      send(): Promise<unknown> {
        return Promise.resolve({});
      }
    }
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<void>;
    const run = new AsyncFunction(
      'SageMakerClient',
      'CreateModelCommand',
      'CreateEndpointConfigCommand',
      'CreateEndpointCommand',
      bodyOf(sdkSnippet(deploy)),
    );

    // Act
    await run(Client, command('CreateModel'), command('CreateEndpointConfig'), command('CreateEndpoint'));

    // Assert
    expect(regions).toEqual([REGION]);
    expect(sent).toEqual([
      { command: 'CreateModel', input: deploy.createModel },
      { command: 'CreateEndpointConfig', input: deploy.createEndpointConfig },
      { command: 'CreateEndpoint', input: deploy.createEndpoint },
    ]);
  });
});

describe('cdkSnippet', () => {
  function synthesized(deploy: CandidateDeploy): Template {
    // Without aws-cdk-lib's built-in validation, which would only flag the placeholders.
    const stack = new Stack(createTestApp(), 'Snippet');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the report's own snippet, nothing user-written
    new Function('sagemaker', bodyOf(cdkSnippet(deploy))).call(stack, sagemaker);
    return Template.fromStack(stack);
  }

  function propertiesOf(template: Template, type: string): unknown[] {
    return Object.values(template.findResources(type)).map(
      (resource: { Properties?: unknown }) => resource.Properties,
    );
  }

  it('synthesizes the model, endpoint config and endpoint of the report’s requests', async () => {
    // Prepare
    const deploy = deployOf(await plan(runInput()), 'cpu');

    // Act
    const template = synthesized(deploy);

    // Assert: CloudFormation's properties are the API's members, with the same values.
    expect(propertiesOf(template, 'AWS::SageMaker::Model')).toEqual([deploy.createModel]);
    expect(propertiesOf(template, 'AWS::SageMaker::EndpointConfig')).toEqual([deploy.createEndpointConfig]);
    expect(propertiesOf(template, 'AWS::SageMaker::Endpoint')).toEqual([deploy.createEndpoint]);
  });

  it('orders the endpoint after its config and the config after its model', async () => {
    // Prepare
    const deploy = deployOf(await plan(runInput()), 'cpu');

    // Act
    const template = synthesized(deploy);

    // Assert
    const logicalIdOf = (type: string) => Object.keys(template.findResources(type))[0];
    expect(template.findResources('AWS::SageMaker::EndpointConfig')).toEqual({
      [logicalIdOf('AWS::SageMaker::EndpointConfig') ?? '']: expect.objectContaining({
        DependsOn: [logicalIdOf('AWS::SageMaker::Model')],
      }),
    });
    expect(template.findResources('AWS::SageMaker::Endpoint')).toEqual({
      [logicalIdOf('AWS::SageMaker::Endpoint') ?? '']: expect.objectContaining({
        DependsOn: [logicalIdOf('AWS::SageMaker::EndpointConfig')],
      }),
    });
  });

  it('synthesizes a serverless variant’s memory and concurrency', async () => {
    // Prepare
    const deploy = deployOf(await plan(runInput()), 'serverless');

    // Act
    const template = synthesized(deploy);

    // Assert
    expect(propertiesOf(template, 'AWS::SageMaker::EndpointConfig')).toEqual([deploy.createEndpointConfig]);
    expect(deploy.createEndpointConfig.ProductionVariants).toEqual([
      {
        VariantName: 'AllTraffic',
        ModelName: '<model-name>',
        ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: 5 },
      },
    ]);
  });
});

describe('cdkSnippet: routing', () => {
  it('synthesizes a candidate’s routingStrategy as the variant’s RoutingConfig, as the requests carry it', async () => {
    // Prepare
    const input = runInput();
    const routed = {
      ...input,
      candidates: [
        {
          id: 'cpu-x2',
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 2,
          routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
        },
      ],
    };
    const deploy = deployOf(await plan(routed), 'cpu-x2');
    const stack = new Stack(createTestApp(), 'Snippet');

    // Act
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the report's own snippet, nothing user-written
    new Function('sagemaker', bodyOf(cdkSnippet(deploy))).call(stack, sagemaker);

    // Assert
    expect(deploy.createEndpointConfig.ProductionVariants).toEqual([
      {
        VariantName: 'AllTraffic',
        ModelName: '<model-name>',
        InstanceType: 'ml.c5.xlarge',
        InitialInstanceCount: 2,
        RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
      },
    ]);
    const configs = Object.values(
      Template.fromStack(stack).findResources('AWS::SageMaker::EndpointConfig'),
    ).map((resource: { Properties?: unknown }) => resource.Properties);
    expect(configs).toEqual([deploy.createEndpointConfig]);
  });
});

describe('the report’s deploy section', () => {
  it('fences requests whose environment holds backticks with a longer fence', async () => {
    // Prepare
    const runPlan = await plan({
      ...runInput(),
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge', environment: { NOTE: '```' } }],
    });
    const report = buildReport({
      plan: runPlan,
      outcomes: [{ candidateId: 'cpu', status: 'FAILED' }],
      results: new Map(),
      measuredLocally: false,
      generatedAt: '2026-11-24T12:00:00.000Z',
      deployment: { packagedModel: PACKAGED, compilations: [], region: REGION },
    });

    // Act
    const markdown = renderMarkdownReport(report);

    // Assert
    expect(markdown).toContain('````json\n{\n  "ModelName": "<model-name>",');
    expect(markdown).toContain('      "NOTE": "```"\n    }\n  }\n}\n````\n');
  });
});

describe('the order of the report', () => {
  /** The sample report, its recommended candidate carrying the requests a run on AWS sent. */
  async function withDeploy(): Promise<Report> {
    const report = sampleReport();
    const winner = report.recommendation?.candidateId;
    if (winner === undefined) throw new Error('the sample report recommends nothing');
    const deploy = deployOf(await plan(runInput()), 'cpu');
    return {
      ...report,
      candidates: report.candidates.map((c) => (c.id === winner ? { ...c, deploy } : c)),
    };
  }

  it('puts the verdict, money, chart and table before the deploy requests in report.html, folded', async () => {
    // Prepare
    const report = await withDeploy();

    // Act
    const html = await renderHtmlReport(report);

    // Assert
    const at = (text: string): number => {
      const index = html.indexOf(text);
      if (index === -1) throw new Error(`report.html has no ${text}`);
      return index;
    };
    const order = [
      at('<h2>Outcome</h2>'),
      at('<h2>Recommendation</h2>'),
      at('per 1M inferences'),
      at('<h2>Charts</h2>'),
      at('<h2>Candidates</h2>'),
      at('<h2>Candidate details</h2>'),
      at(`<h2>Deploy ${report.recommendation?.candidateId ?? ''}</h2>`),
      at('<details class="deploy"><summary>Requests, SDK and CDK code</summary>'),
      html.lastIndexOf('<p>CreateModel (JSON):</p>'),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(html.slice(html.lastIndexOf('<p>CreateModel (JSON):</p>'))).toContain('</details>\n</body>');
  });

  it('puts the verdict, money, table and details before the deploy requests in report.md, folded', async () => {
    // Prepare
    const report = await withDeploy();

    // Act
    const lines = renderMarkdownReport(report).split('\n');

    // Assert
    const at = (line: string): number => {
      const index = lines.indexOf(line);
      if (index === -1) throw new Error(`report.md has no line ${line}`);
      return index;
    };
    const order = [
      at('## Outcome'),
      at('## Recommendation'),
      at('## Candidates'),
      at('## Prices and cost'),
      at(`## Deploy ${report.recommendation?.candidateId ?? ''}`),
      at('<details><summary>Requests, SDK and CDK code</summary>'),
      lines.lastIndexOf('CreateModel (JSON):'),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(lines[at('## Recommendation') + 2]).toMatch(/per 1M inferences/);
  });
});
