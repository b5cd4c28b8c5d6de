import { describe, expect, it } from '@jest/globals';
import { ASYNC_RUN_DEFAULTS, ASYNC_RUN_LIMITS } from '../../../core/contracts/async-run-input.js';
import { parseAsyncRunInput } from '../../../core/planning/async-run-input-check.js';
import { CREDENTIAL_EXPECTED } from '../../../core/contracts/credentials.js';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';

function issuesOf(input: unknown): string[] {
  try {
    parseAsyncRunInput(input);
  } catch (error) {
    if (error instanceof InvalidRunInputError)
      return error.issues.map((i) => `${i.field}: got ${i.given}, expected ${i.expected}`);
    throw error;
  }
  throw new Error('expected the input to be rejected');
}

/** A reused endpoint and one input: the smallest valid run. */
const REUSE = { endpointName: 'my-async-endpoint', inputs: ['s3://my-bucket/in/1.json'] };

const DEPLOY = {
  endpoint: {
    modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
    framework: 'pytorch',
    instanceType: 'ml.c5.xlarge',
  },
  inputs: ['s3://mso-artifacts/inputs/1.json'],
};

/** A Hugging Face Hub model deployed for the run: no model data. */
const HUB_ENDPOINT = {
  framework: 'huggingface',
  frameworkVersion: '4.49.0',
  pytorchVersion: '2.6.0',
  hub: { modelId: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english', task: 'text-classification' },
  instanceType: 'ml.m5.xlarge',
};

describe('parseAsyncRunInput', () => {
  it('fills the defaults of a minimal input that reuses an endpoint', () => {
    // Act
    const input = parseAsyncRunInput(REUSE);

    // Assert
    expect(input).toEqual({
      endpointName: 'my-async-endpoint',
      inputs: ['s3://my-bucket/in/1.json'],
      contentType: 'application/json',
      maxConcurrency: 10,
      invocationTimeoutSeconds: 900,
      requestTtlSeconds: ASYNC_RUN_DEFAULTS.requestTtlSeconds,
    });
  });

  it('fills the defaults of an endpoint deployed for the run', () => {
    // Act
    const input = parseAsyncRunInput(DEPLOY);

    // Assert
    expect(input.endpoint).toEqual({
      modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
      framework: 'pytorch',
      instanceType: 'ml.c5.xlarge',
      maxInstanceCount: 1,
      targetBacklogPerInstance: 5,
      environment: {},
      keepAfterRun: false,
    });
    expect(input.endpointName).toBeUndefined();
  });

  it('keeps every endpoint setting that is given', () => {
    // Arrange
    const endpoint = {
      ...DEPLOY.endpoint,
      frameworkVersion: '2.1',
      image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1-cpu-py310',
      maxInstanceCount: 4,
      maxConcurrentInvocationsPerInstance: 2,
      targetBacklogPerInstance: 0.5,
      environment: { OMP_NUM_THREADS: '2' },
      keepAfterRun: true,
    };

    // Act
    const input = parseAsyncRunInput({ ...DEPLOY, endpoint });

    // Assert
    expect(input.endpoint).toEqual(endpoint);
  });

  it('accepts an input prefix instead of a list', () => {
    const input = parseAsyncRunInput({ endpointName: 'e', inputPrefix: 's3://my-bucket/batch-7/' });

    expect(input.inputPrefix).toBe('s3://my-bucket/batch-7/');
  });

  it('accepts a benchmark burst', () => {
    const input = parseAsyncRunInput({ ...REUSE, benchmark: { burstSize: 200 } });

    expect(input.benchmark).toEqual({ burstSize: 200 });
  });

  it.each([[ASYNC_RUN_LIMITS.minRequestTtlSeconds], [ASYNC_RUN_LIMITS.maxRequestTtlSeconds]])(
    'accepts a queue TTL of %i s (SageMaker bounds)',
    (requestTtlSeconds) => {
      expect(parseAsyncRunInput({ ...REUSE, requestTtlSeconds }).requestTtlSeconds).toBe(requestTtlSeconds);
    },
  );

  it('fails when the queue TTL is under SageMaker minimum of 60 s', () => {
    expect(issuesOf({ ...REUSE, requestTtlSeconds: 59 })).toEqual([
      'requestTtlSeconds: got 59, expected a number of at least 60',
    ]);
  });

  it('fails when the queue TTL is above SageMaker maximum of 21,600 s', () => {
    expect(issuesOf({ ...REUSE, requestTtlSeconds: 21_601 })).toEqual([
      'requestTtlSeconds: got 21601, expected a number of at most 21600',
    ]);
  });

  it('fails when the queue TTL is not a whole number of seconds', () => {
    expect(issuesOf({ ...REUSE, requestTtlSeconds: 90.5 })[0]).toMatch(
      /^requestTtlSeconds: got 90\.5, expected/,
    );
  });

  it('fails when a huggingface endpoint names no base framework, naming endpoint.pytorchVersion', () => {
    // Act
    const issues = issuesOf({
      ...DEPLOY,
      endpoint: { ...DEPLOY.endpoint, framework: 'huggingface', frameworkVersion: '4.49.0' },
    });

    // Assert
    expect(issues).toEqual([
      'endpoint.pytorchVersion: got nothing, expected exactly one of pytorchVersion and tensorflowVersion: the framework under transformers, such as 2.6.0',
    ]);
  });

  it('accepts a Hugging Face Hub model instead of model data', () => {
    // Act
    const input = parseAsyncRunInput({ ...DEPLOY, endpoint: HUB_ENDPOINT });

    // Assert
    expect(input.endpoint?.hub).toEqual({
      modelId: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
      task: 'text-classification',
    });
    expect(input.endpoint?.modelDataUrl).toBeUndefined();
  });

  it('accepts inference code for a Hub model', () => {
    // Act
    const input = parseAsyncRunInput({
      ...DEPLOY,
      endpoint: { ...HUB_ENDPOINT, codeUri: 's3://mso-artifacts/models/sst2/code.tar.gz' },
    });

    // Assert
    expect(input.endpoint?.codeUri).toBe('s3://mso-artifacts/models/sst2/code.tar.gz');
  });

  it('fails when both hub and modelDataUrl are given, naming endpoint.modelDataUrl', () => {
    // Act
    const issues = issuesOf({
      ...DEPLOY,
      endpoint: { ...HUB_ENDPOINT, modelDataUrl: 's3://mso-artifacts/models/sst2/model.tar.gz' },
    });

    // Assert
    expect(issues).toEqual([
      'endpoint.modelDataUrl: got "s3://mso-artifacts/models/sst2/model.tar.gz", expected either hub (the DLC downloads the model) or modelDataUrl (your model.tar.gz), not both',
    ]);
  });

  it('fails when a huggingface endpoint has neither hub nor modelDataUrl', () => {
    // Prepare
    const { hub: _hub, ...noSource } = HUB_ENDPOINT;

    // Act
    const issues = issuesOf({ ...DEPLOY, endpoint: noSource });

    // Assert
    expect(issues).toEqual([
      'endpoint.modelDataUrl: got nothing, expected a model.tar.gz (an s3:// URI), or hub: a Hub model { "modelId": "owner/name" }',
    ]);
  });

  it('fails when a pytorch endpoint has no modelDataUrl', () => {
    // Prepare
    const { modelDataUrl: _modelDataUrl, ...noSource } = DEPLOY.endpoint;

    // Act
    const issues = issuesOf({ ...DEPLOY, endpoint: noSource });

    // Assert
    expect(issues).toEqual([
      'endpoint.modelDataUrl: got nothing, expected the model.tar.gz to deploy (an s3:// URI)',
    ]);
  });

  it('refuses a Hub model for a framework other than huggingface', () => {
    // Act
    const issues = issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, hub: { modelId: 'gpt2' } } });

    // Assert
    expect(issues).toEqual([
      'endpoint.hub: got {"modelId":"gpt2"}, expected no hub for pytorch: it is a field of framework "huggingface" endpoints only',
    ]);
  });

  it('refuses codeUri with modelDataUrl: the code goes inside the archive', () => {
    // Act
    const issues = issuesOf({
      ...DEPLOY,
      endpoint: { ...DEPLOY.endpoint, codeUri: 's3://mso-artifacts/models/cnn/code.tar.gz' },
    });

    // Assert
    expect(issues).toEqual([
      'endpoint.codeUri: got "s3://mso-artifacts/models/cnn/code.tar.gz", expected no codeUri with modelDataUrl: put the code inside the model.tar.gz as code/inference.py (the PyTorch and Hugging Face inference containers read code only from the model data\'s code/ folder); codeUri is for hub models',
    ]);
  });

  it('refuses inference code that is neither a .tar.gz nor a .py file', () => {
    // Act
    const issues = issuesOf({
      ...DEPLOY,
      endpoint: { ...HUB_ENDPOINT, codeUri: 's3://mso-artifacts/models/sst2/code.zip' },
    });

    // Assert
    expect(issues).toEqual([
      'endpoint.codeUri: got "s3://mso-artifacts/models/sst2/code.zip", expected a .tar.gz of a code folder with inference.py (e.g. tar -czf code.tar.gz -C code .), or one .py file',
    ]);
  });

  it('fails when a huggingface endpoint environment holds a Hub token, without showing it', () => {
    // Act
    const issues = issuesOf({
      ...DEPLOY,
      endpoint: { ...HUB_ENDPOINT, environment: { HF_API_TOKEN: 'hf_secret' } },
    });

    // Assert
    expect(issues).toEqual([
      `endpoint.environment.HF_API_TOKEN: got a credential, by its name, expected ${CREDENTIAL_EXPECTED}`,
    ]);
  });

  it('fails when pytorchVersion is given for another framework', () => {
    // Act
    const issues = issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, pytorchVersion: '2.6.0' } });

    // Assert
    expect(issues).toEqual([
      'endpoint.pytorchVersion: got "2.6.0", expected no pytorchVersion for pytorch: it is a field of framework "huggingface" models only',
    ]);
  });

  it('fails when neither endpointName nor endpoint is given', () => {
    expect(issuesOf({ inputs: ['s3://my-bucket/a'] })).toEqual([
      'endpointName: got nothing, expected exactly one of `endpointName` (an existing async endpoint) and `endpoint` (one to deploy for the run)',
    ]);
  });

  it('fails when both endpointName and endpoint are given, naming the endpoint', () => {
    const issues = issuesOf({ ...DEPLOY, endpointName: 'my-async-endpoint' });

    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^endpoint: got \{"modelDataUrl":.*, expected exactly one of `endpointName` \(an existing async endpoint\) and `endpoint` \(one to deploy for the run\)$/,
    );
  });

  it('fails when the endpoint name is not a SageMaker endpoint name', () => {
    expect(issuesOf({ ...REUSE, endpointName: 'my_endpoint' })).toEqual([
      'endpointName: got "my_endpoint", expected a SageMaker endpoint name',
    ]);
  });

  it('fails when a deployed endpoint may scale out beyond 10 instances', () => {
    expect(issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, maxInstanceCount: 11 } })).toEqual([
      'endpoint.maxInstanceCount: got 11, expected a number of at most 10',
    ]);
  });

  it('fails when the concurrent invocations per instance exceed SageMaker maximum of 1000', () => {
    expect(
      issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, maxConcurrentInvocationsPerInstance: 1001 } }),
    ).toEqual(['endpoint.maxConcurrentInvocationsPerInstance: got 1001, expected a number of at most 1000']);
  });

  it('fails when the endpoint framework is unknown, listing the known ones', () => {
    expect(issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, framework: 'jax' } })[0]).toMatch(
      /^endpoint\.framework: got "jax", expected one of "onnx"\|"pytorch"/,
    );
  });

  it('fails when a deployed endpoint has an unknown field', () => {
    expect(issuesOf({ ...DEPLOY, endpoint: { ...DEPLOY.endpoint, minInstanceCount: 0 } })).toEqual([
      'endpoint: got unknown field(s) "minInstanceCount", expected only the documented fields (check the spelling)',
    ]);
  });

  it('fails when the benchmark burst is larger than one run allows', () => {
    expect(issuesOf({ ...REUSE, benchmark: { burstSize: 701 } })).toEqual([
      'benchmark.burstSize: got 701, expected a number of at most 700',
    ]);
  });

  it('accepts a generative run in each answer format', () => {
    for (const format of ['tgi', 'lmi', 'openai'] as const) {
      expect(parseAsyncRunInput({ ...REUSE, generative: { format } }).generative).toEqual({ format });
    }
  });

  it('fails when a generative run names an unknown answer format', () => {
    expect(issuesOf({ ...REUSE, generative: { format: 'vllm' } })).toEqual([
      'generative.format: got "vllm", expected one of tgi, lmi, openai: the container\'s answer format (TGI, LMI (DJL Serving), or an OpenAI-compatible completion)',
    ]);
  });

  it('fails when the benchmark burst is empty', () => {
    expect(issuesOf({ ...REUSE, benchmark: { burstSize: 0 } })).toEqual([
      'benchmark.burstSize: got 0, expected a number of at least 1',
    ]);
  });

  it('fails when neither inputs nor inputPrefix is given', () => {
    expect(issuesOf({ endpointName: 'e' })).toEqual([
      'inputs: got nothing, expected exactly one of `inputs` (a list of URIs) and `inputPrefix` (a prefix URI)',
    ]);
  });

  it('fails when both inputs and inputPrefix are given', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], inputPrefix: 's3://my-bucket/b/' }),
    ).toEqual([
      'inputPrefix: got "s3://my-bucket/b/", expected exactly one of `inputs` (a list of URIs) and `inputPrefix` (a prefix URI)',
    ]);
  });

  it('fails when there are more inputs than one run allows', () => {
    const inputs = Array.from({ length: 701 }, (_, i) => `s3://my-bucket/in/${i}.json`);

    expect(issuesOf({ endpointName: 'e', inputs })[0]).toMatch(
      /^inputs: got .*, expected at most 700 inputs/,
    );
  });

  it('fails when an input is not an object URI, naming its position', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/ok.json', 'https://example.com/x'] }),
    ).toEqual([
      'inputs[1]: got "https://example.com/x", expected an object URI such as s3://my-bucket/inputs/0001.json (file:///… only in local mode)',
    ]);
  });

  it('fails when the prefix does not end with a slash', () => {
    expect(issuesOf({ endpointName: 'e', inputPrefix: 's3://my-bucket/batch' })[0]).toMatch(
      /^inputPrefix: got "s3:\/\/my-bucket\/batch", expected a prefix URI ending with "\/"/,
    );
  });

  it('fails when the invocation timeout is above SageMaker limit of 3600 s', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], invocationTimeoutSeconds: 7200 }),
    ).toEqual(['invocationTimeoutSeconds: got 7200, expected a number of at most 3600']);
  });

  it('fails when the concurrency exceeds what the nested Maps run at once', () => {
    expect(issuesOf({ ...REUSE, maxConcurrency: 1001 })).toEqual([
      'maxConcurrency: got 1001, expected a number of at most 1000',
    ]);
  });

  it('fails when the wait settings are given: they are deployed with the stack now', () => {
    expect(issuesOf({ ...REUSE, waitTimeoutSeconds: 3600, heartbeatSeconds: 600 })).toEqual([
      '(input): got unknown field(s) "waitTimeoutSeconds", "heartbeatSeconds", expected only the documented fields (check the spelling)',
    ]);
  });

  it('fails when a field is unknown', () => {
    expect(issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], concurrency: 5 })).toEqual([
      '(input): got unknown field(s) "concurrency", expected only the documented fields (check the spelling)',
    ]);
  });
});

describe('parseAsyncRunInput: the run input rules, worded the same', () => {
  const withEnvironment = (environmentJson: string): unknown =>
    JSON.parse(
      `{"endpoint":{"modelDataUrl":"s3://mso-artifacts/models/cnn/model.tar.gz","framework":"pytorch",` +
        `"instanceType":"ml.c5.xlarge","environment":${environmentJson}},"inputs":["s3://mso-artifacts/inputs/1.json"]}`,
    );

  it.each<[string, string, string]>([
    [
      'a __proto__ key in the environment',
      '{"__proto__":"x"}',
      'endpoint.environment["__proto__"]: got "__proto__", expected a key other than "__proto__", "constructor" and ' +
        '"prototype" (JavaScript objects treat these names specially, so the run could not keep what you wrote): rename it',
    ],
    [
      'a space in an environment variable name',
      '{"MY VAR":"1"}',
      'endpoint.environment["MY VAR"]: got "MY VAR", expected a name of ASCII letters, digits and "_" only ' +
        `(SageMaker's EnvironmentKey pattern ^[a-zA-Z_][a-zA-Z0-9_]*$): " " at character 3 is refused`,
    ],
    [
      'a value over 1024 bytes',
      `{"A":"${'x'.repeat(1025)}"}`,
      `endpoint.environment.A: got "${'x'.repeat(78)}… (1025 characters), expected a value of at most 1024 bytes ` +
        "in UTF-8 (SageMaker's limit on an Environment value; this one has 1025)",
    ],
  ])('refuses %s, naming the field and the rule', (_case, environmentJson, expected) => {
    // Act
    const issues = issuesOf(withEnvironment(environmentJson));

    // Assert
    expect(issues).toEqual([expected]);
  });
});
