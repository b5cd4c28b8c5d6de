import { type CandidateDeploy, DEPLOY_PLACEHOLDERS } from './deploy-requests.js';
import type { CandidateReport, Report } from './report.js';

/**
 * The report's "Deploy" section and each candidate's deploy block: the requests the workflow sent
 * (report.json's `deploy`) as JSON, as an AWS SDK v3 script and as CDK code. The SDK and CDK code
 * are generated from the JSON, and tests run both and compare what they send or synthesize with it
 * (test/core/report/render-deploy.test.ts).
 */

export interface DeployBlock {
  readonly title: string;
  readonly language: 'json' | 'ts';
  readonly code: string;
}

/**
 * A value as JavaScript source: JSON, with keys that are identifiers unquoted. JSON escapes line
 * breaks inside strings, so every line starts with a key, a value or a bracket.
 */
function js(value: unknown, indent = ''): string {
  return JSON.stringify(value, null, 2)
    .replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, '$1$2:')
    .replaceAll('\n', `\n${indent}`);
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

const FILL_IN =
  `Replace the placeholders (${Object.values(DEPLOY_PLACEHOLDERS).join(', ')}) with your names and ` +
  'the ARN of a role SageMaker can assume to pull the image and read the model data.';

/** TypeScript over `@aws-sdk/client-sagemaker`, top-level await (an ES module). */
export function sdkSnippet(deploy: CandidateDeploy): string {
  const region = deploy.onAws === undefined ? deploy.region : '<region>';
  return [
    "import { CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';",
    '',
    `// ${FILL_IN}`,
    `const sagemaker = new SageMakerClient({ region: ${js(region)} });`,
    `await sagemaker.send(new CreateModelCommand(${js(deploy.createModel)}));`,
    `await sagemaker.send(new CreateEndpointConfigCommand(${js(deploy.createEndpointConfig)}));`,
    `await sagemaker.send(new CreateEndpointCommand(${js(deploy.createEndpoint)}));`,
    '',
  ].join('\n');
}

/**
 * aws-cdk-lib's L1 constructs `CfnModel`, `CfnEndpointConfig` and `CfnEndpoint`, with the same values
 * as the requests: the CloudFormation resources' properties carry the API's member names (e.g.
 * AWS::SageMaker::EndpointConfig ProductionVariant,
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-sagemaker-endpointconfig-productionvariant.html).
 * The body below the import is plain JavaScript as well, so the test runs it in a stack.
 */
export function cdkSnippet(deploy: CandidateDeploy): string {
  const model = deploy.createModel;
  const container = model.PrimaryContainer;
  const variants = deploy.createEndpointConfig.ProductionVariants.map((v) => ({
    variantName: v.VariantName,
    modelName: v.ModelName,
    ...(v.InstanceType === undefined ? {} : { instanceType: v.InstanceType }),
    ...(v.InitialInstanceCount === undefined ? {} : { initialInstanceCount: v.InitialInstanceCount }),
    ...(v.RoutingConfig === undefined
      ? {}
      : { routingConfig: { routingStrategy: v.RoutingConfig.RoutingStrategy } }),
    ...(v.ServerlessConfig === undefined
      ? {}
      : {
          serverlessConfig: {
            memorySizeInMb: v.ServerlessConfig.MemorySizeInMB,
            maxConcurrency: v.ServerlessConfig.MaxConcurrency,
          },
        }),
  }));
  return [
    "import { aws_sagemaker as sagemaker } from 'aws-cdk-lib';",
    '',
    `// In a construct (\`this\` is the scope). ${FILL_IN}`,
    "const model = new sagemaker.CfnModel(this, 'Model', {",
    `  modelName: ${js(model.ModelName)},`,
    `  executionRoleArn: ${js(model.ExecutionRoleArn)},`,
    '  primaryContainer: {',
    `    image: ${js(container.Image)},`,
    // A Hugging Face Hub model has none: its container downloads the model.
    ...(container.ModelDataUrl === undefined ? [] : [`    modelDataUrl: ${js(container.ModelDataUrl)},`]),
    // An optimization job's output: uncompressed files under a prefix (CfnModel ModelDataSourceProperty).
    ...(container.ModelDataSource === undefined
      ? []
      : [
          `    modelDataSource: { s3DataSource: { s3Uri: ${js(container.ModelDataSource.S3DataSource.S3Uri)}, s3DataType: ${js('S3Prefix')}, compressionType: ${js('None')} } },`,
        ]),
    `    environment: ${js(container.Environment, '    ')},`,
    '  },',
    '});',
    "const endpointConfig = new sagemaker.CfnEndpointConfig(this, 'EndpointConfig', {",
    `  endpointConfigName: ${js(deploy.createEndpointConfig.EndpointConfigName)},`,
    `  productionVariants: ${js(variants, '  ')},`,
    '});',
    // The construct's dependency, as DependsOn: CfnResource's own addDependency is deprecated.
    'endpointConfig.node.addDependency(model);',
    "const endpoint = new sagemaker.CfnEndpoint(this, 'Endpoint', {",
    `  endpointName: ${js(deploy.createEndpoint.EndpointName)},`,
    `  endpointConfigName: ${js(deploy.createEndpoint.EndpointConfigName)},`,
    '});',
    'endpoint.node.addDependency(endpointConfig);',
    '',
  ].join('\n');
}

/**
 * The requests as a user would send them, or none. A run on AWS: the requests it sent. A local run:
 * the same requests with the image this candidate gets on AWS in `Image`, since SageMaker cannot
 * pull the local model server's image; none when the image table has no AWS image for it.
 */
export function deployableRequests(deploy: CandidateDeploy): CandidateDeploy | undefined {
  const onAws = deploy.onAws;
  if (onAws === undefined) return deploy;
  if (!('imageUri' in onAws)) return undefined;
  const createModel = deploy.createModel;
  return {
    ...deploy,
    createModel: {
      ...createModel,
      PrimaryContainer: { ...createModel.PrimaryContainer, Image: onAws.imageUri },
    },
    imageSource: onAws.source,
  };
}

/** The three requests as JSON, then the SDK and CDK code; none without a deployable image. */
export function deployBlocks(deploy: CandidateDeploy): DeployBlock[] {
  const shown = deployableRequests(deploy);
  if (shown === undefined) return [];
  return [
    { title: 'CreateModel (JSON)', language: 'json', code: json(shown.createModel) },
    { title: 'CreateEndpointConfig (JSON)', language: 'json', code: json(shown.createEndpointConfig) },
    { title: 'CreateEndpoint (JSON)', language: 'json', code: json(shown.createEndpoint) },
    { title: 'AWS SDK for JavaScript v3', language: 'ts', code: sdkSnippet(shown).trimEnd() },
    { title: 'CDK (aws-cdk-lib)', language: 'ts', code: cdkSnippet(shown).trimEnd() },
  ];
}

/** What the requests deploy and what to change, one sentence each. */
export function deployFacts(deploy: CandidateDeploy): string[] {
  const shown = deployableRequests(deploy);
  const onAws = deploy.onAws;
  if (shown === undefined) {
    return [
      `Measured locally: ${onAws !== undefined && 'note' in onAws ? onAws.note : 'no AWS image known'}.`,
      'No requests to show: SageMaker cannot pull the local model server’s image, and the image table names none for this candidate on AWS.',
    ];
  }
  const container = shown.createModel.PrimaryContainer;
  const facts = [
    container.ModelDataSource !== undefined
      ? `Image ${container.Image} (${shown.imageSource}); model data: the optimized model's files under ${container.ModelDataSource.S3DataSource.S3Uri} (ModelDataSource, uncompressed).`
      : container.ModelDataUrl === undefined
        ? `Image ${container.Image} (${shown.imageSource}); no model data: the container downloads the Hugging Face Hub model HF_MODEL_ID names.`
        : `Image ${container.Image} (${shown.imageSource}); model data ${deploy.modelDataFile === undefined ? container.ModelDataUrl : `${deploy.modelDataFile} (${container.ModelDataUrl} in the requests)`}.`,
    onAws === undefined
      ? 'These are the requests the workflow sent for this candidate, with the names and the role replaced by placeholders and without the run’s tags (clean-up and the janitor delete what carries them).'
      : 'Measured locally on the project’s model server: these are the requests the workflow sent for this candidate with the image it gets on AWS in place of the local one, the names and the role replaced by placeholders and without the run’s tags; put the model data in S3 and its URI in ModelDataUrl.',
    FILL_IN,
  ];
  return facts;
}

/** A fence longer than any run of backticks in the code: environment values are user text. */
function fence(code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((match) => match[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function markdownBlocks(deploy: CandidateDeploy, escapeMarkdown: (text: string) => string): string[] {
  return deployBlocks(deploy).flatMap(({ title, language, code }) => [
    `${escapeMarkdown(title)}:`,
    '',
    `${fence(code)}${language}`,
    code,
    fence(code),
    '',
  ]);
}

function recommended(report: Report): CandidateReport | undefined {
  const id = report.recommendation?.candidateId;
  return id === undefined ? undefined : report.candidates.find((c) => c.id === id);
}

/**
 * report.md's "Deploy the recommendation", at the end of the report, or nothing without a
 * recommendation: its facts, then the requests and code folded (GitHub renders `<details>`).
 */
export function deployMarkdown(report: Report, escapeMarkdown: (text: string) => string): string[] {
  const candidate = recommended(report);
  if (candidate === undefined) return [];
  const heading = `## Deploy ${escapeMarkdown(candidate.id)}`;
  if (candidate.deploy === undefined) {
    return [
      heading,
      '',
      escapeMarkdown(`No requests to show: ${candidate.deployNote ?? 'not recorded'}.`),
      '',
    ];
  }
  const blocks = markdownBlocks(candidate.deploy, escapeMarkdown);
  return [
    heading,
    '',
    ...deployFacts(candidate.deploy).map((fact) => `- ${escapeMarkdown(fact)}`),
    '',
    ...(blocks.length === 0
      ? []
      : ['<details><summary>Requests, SDK and CDK code</summary>', '', ...blocks, '</details>', '']),
  ];
}

/** A candidate's requests in report.md, folded: every candidate's are there, the winner's above. */
export function candidateDeployMarkdown(
  candidate: CandidateReport,
  escapeMarkdown: (text: string) => string,
): string[] {
  if (candidate.deploy === undefined) {
    return candidate.deployNote === undefined ? [] : [escapeMarkdown(`Deploy: ${candidate.deployNote}.`), ''];
  }
  return [
    '<details><summary>Deploy this candidate</summary>',
    '',
    ...deployFacts(candidate.deploy).map((fact) => `- ${escapeMarkdown(fact)}`),
    '',
    ...markdownBlocks(candidate.deploy, escapeMarkdown),
    '</details>',
    '',
  ];
}

function htmlBlocks(deploy: CandidateDeploy, escapeHtml: (text: string) => string): string {
  return [
    `<ul>${deployFacts(deploy)
      .map((fact) => `<li>${escapeHtml(fact)}</li>`)
      .join('')}</ul>`,
    ...deployBlocks(deploy).map(
      ({ title, code }) => `<p>${escapeHtml(title)}:</p><pre><code>${escapeHtml(code)}</code></pre>`,
    ),
  ].join('\n');
}

function htmlCode(deploy: CandidateDeploy, escapeHtml: (text: string) => string): string {
  return deployBlocks(deploy)
    .map(({ title, code }) => `<p>${escapeHtml(title)}:</p><pre><code>${escapeHtml(code)}</code></pre>`)
    .join('\n');
}

/**
 * report.html's "Deploy the recommendation", at the end of the page, or nothing without a
 * recommendation: its facts, then the requests and code folded.
 */
export function deployHtml(report: Report, escapeHtml: (text: string) => string): string {
  const candidate = recommended(report);
  if (candidate === undefined) return '';
  const heading = `<h2>Deploy ${escapeHtml(candidate.id)}</h2>`;
  if (candidate.deploy === undefined) {
    return `${heading}\n<p>${escapeHtml(`No requests to show: ${candidate.deployNote ?? 'not recorded'}.`)}</p>`;
  }
  const code = htmlCode(candidate.deploy, escapeHtml);
  return [
    heading,
    `<ul>${deployFacts(candidate.deploy)
      .map((fact) => `<li>${escapeHtml(fact)}</li>`)
      .join('')}</ul>`,
    code === ''
      ? ''
      : `<details class="deploy"><summary>Requests, SDK and CDK code</summary>\n${code}\n</details>`,
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** A candidate's requests in report.html, folded. */
export function candidateDeployHtml(
  candidate: CandidateReport,
  escapeHtml: (text: string) => string,
): string {
  if (candidate.deploy === undefined) {
    return candidate.deployNote === undefined
      ? ''
      : `<p>${escapeHtml(`Deploy: ${candidate.deployNote}.`)}</p>`;
  }
  return `<details><summary>Deploy this candidate</summary>\n${htmlBlocks(candidate.deploy, escapeHtml)}\n</details>`;
}
