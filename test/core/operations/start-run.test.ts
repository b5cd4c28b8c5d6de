import { describe, expect, it } from '@jest/globals';
import { planAsyncRun } from '../../../core/steps/async/validate-async-run.js';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import type { RunStarter, RunStartOutcome } from '../../../core/run-status/ports.js';
import { apiErrorSchema, startedRunSchema } from '../../../core/contracts/run-api-contract.js';
import { requestOf, invalidRequestRefusal } from '../run-status/support/proxy-events.js';
import { parseStartRunEvent, startRun, type StartRunRequest } from '../../../core/operations/start-run.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import type { ModelHost } from '../../../core/ports/index.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { parseAsyncRunInput } from '../../../core/planning/async-run-input-check.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-cpu';
const START = new Date('2026-11-24T10:00:00.250Z');
const STAGE_URL = 'https://abc123.execute-api.us-east-1.amazonaws.com/v1';

const validInput = {
  model: { artifactUri: 's3://user-models/cnn/model.onnx', framework: 'onnx', inputShape: { input: [1, 3] } },
  payload: { uri: 's3://user-models/cnn/payload.bin' },
  candidates: [{ instanceType: 'ml.c5.large' }],
  loadPlan: { steps: [1, 2], warmupSeconds: 5, stepDurationSeconds: 30 },
  sla: { p95LatencyMs: 100 },
};
const validAsyncInput = {
  endpointName: 'team-async-endpoint',
  inputs: ['s3://user-data/async/in-1.json'],
};

/** Records every start it is asked for and answers with a fixed outcome. */
class RecordingStarter implements RunStarter {
  readonly calls: unknown[] = [];
  constructor(
    private readonly outcome: RunStartOutcome = {
      status: 'started',
      executionArn: EXECUTION_ARN,
      startDate: START,
    },
  ) {}
  start(request: unknown): Promise<RunStartOutcome> {
    this.calls.push(request);
    return Promise.resolve(this.outcome);
  }
}

function request(body: unknown, overrides: Partial<StartRunRequest> = {}): StartRunRequest {
  return {
    workflow: 'optimization',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    contentType: 'application/json',
    requestId: 'c0ffee00-1111-2222-3333-444455556666',
    stageUrl: STAGE_URL,
    ...overrides,
  };
}

async function issuesOf(reply: Promise<{ statusCode: number; body: unknown }>) {
  const { statusCode, body } = await reply;
  expect(statusCode).toBe(400);
  const parsed = apiErrorSchema.parse(body);
  expect(parsed.error).toBe('InvalidRunInput');
  return parsed.issues;
}

/** The issues the workflow's first state refuses the same input with. */
async function firstStateIssues(workflow: 'optimization' | 'async-inference', input: unknown) {
  const refusal =
    workflow === 'optimization'
      ? await validateAndPlan(
          { runId: 'nightly-cpu', input },
          {
            store: new MemoryObjectStore(),
            artifactsBucket: 'mso-artifacts',
            allowFileUris: false,
            logger: silentLogger,
          },
        ).catch((error: unknown) => error)
      : (() => {
          try {
            return parseAsyncRunInput(input);
          } catch (error) {
            return error;
          }
        })();
  expect(refusal).toBeInstanceOf(InvalidRunInputError);
  return (refusal as InvalidRunInputError).issues;
}

describe('startRun', () => {
  it('starts a valid run named after the client’s run id and answers with its status URL', async () => {
    // Prepare
    const starter = new RecordingStarter();

    // Act
    const reply = await startRun(request({ runId: 'nightly-cpu', input: validInput }), {
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 200,
      body: {
        runId: 'nightly-cpu',
        executionArn: EXECUTION_ARN,
        startDate: 1795514400.25,
        statusUrl: `${STAGE_URL}/runs/nightly-cpu`,
      },
    });
    expect(startedRunSchema.safeParse(reply.body).success).toBe(true);
    expect(starter.calls).toEqual([{ workflow: 'optimization', name: 'nightly-cpu', input: validInput }]);
  });

  it('names a run without a run id after the API’s request id', async () => {
    // Prepare
    const starter = new RecordingStarter();

    // Act
    await startRun(request({ input: validAsyncInput }, { workflow: 'async-inference' }), {
      starter,
      logger: silentLogger,
    });

    // Assert
    expect(starter.calls).toEqual([
      {
        workflow: 'async-inference',
        name: 'c0ffee00-1111-2222-3333-444455556666',
        input: validAsyncInput,
      },
    ]);
  });

  describe('refuses with the first state’s own issue list, starting nothing', () => {
    /** Each input as JSON text, as a client sends it: `1e400` and `__proto__` only exist as text. */
    const json = (value: unknown) => JSON.stringify(value);
    const cases: readonly [string, 'optimization' | 'async-inference', string][] = [
      ['an unknown top-level field', 'optimization', json({ ...validInput, slas: {} })],
      [
        'a serverless memory size SageMaker refuses',
        'optimization',
        json({ ...validInput, candidates: [{ serverless: { memorySizeMb: 1000, maxConcurrency: 5 } }] }),
      ],
      [
        'a number too large for JSON and a special key',
        'optimization',
        json({
          ...validInput,
          sla: { p95LatencyMs: 0 },
          candidates: [{ instanceType: 'ml.c5.large', environment: { KEY: 'x' } }],
        })
          .replace('"p95LatencyMs":0', '"p95LatencyMs":1e400')
          .replace('"KEY"', '"__proto__"'),
      ],
      [
        'an async concurrency above the limit',
        'async-inference',
        json({ ...validAsyncInput, maxConcurrency: 5000 }),
      ],
      ['an async run without inputs', 'async-inference', json({ endpointName: 'team-async-endpoint' })],
    ];

    it.each(cases)('fails when the input has %s', async (_name, workflow, inputText) => {
      // Prepare
      const starter = new RecordingStarter();
      const expected = await firstStateIssues(workflow, JSON.parse(inputText));

      // Act
      const issues = await issuesOf(
        startRun(request(`{"runId":"nightly-cpu","input":${inputText}}`, { workflow }), {
          starter,
          logger: silentLogger,
        }),
      );

      // Assert
      expect(issues).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
      expect(starter.calls).toEqual([]);
    });
  });

  it('fails when an async endpoint has no serving image in the region, with the issues the first async state gives', async () => {
    // Prepare: the run API accepted such a run, which its first state then refused without any AWS read.
    const starter = new RecordingStarter();
    const input = {
      endpoint: {
        modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
        framework: 'onnx',
        instanceType: 'ml.c5.xlarge',
      },
      inputs: ['s3://mso-artifacts/inputs/in-1.json'],
    };
    const firstState = await planAsyncRun(
      { runId: 'nightly-async', input },
      {
        // Neither is reached: the refusal comes before any read.
        store: new MemoryObjectStore(),
        host: {} as ModelHost,
        artifactsBucket: 'mso-artifacts',
        region: 'us-east-1',
        allowFileUris: false,
        notificationTopics: {
          successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
          errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
        },
        waitTimeoutSeconds: 26_100,
        nowEpochMs: () => 0,
        logger: silentLogger,
      },
    ).catch((error: unknown) => error);

    // Act
    const issues = await issuesOf(
      startRun(request({ runId: 'nightly-async', input }, { workflow: 'async-inference' }), {
        starter,
        logger: silentLogger,
        servingRegion: 'us-east-1',
      }),
    );

    // Assert
    expect(firstState).toBeInstanceOf(InvalidRunInputError);
    expect(issues).toEqual((firstState as InvalidRunInputError).issues);
    expect(issues).toEqual([expect.objectContaining({ field: 'endpoint' })]);
    expect(starter.calls).toEqual([]);
  });

  it('fails when the input is nested 100,000 levels deep, before the body is parsed', async () => {
    // Prepare
    const starter = new RecordingStarter();
    const body = `{"runId":"deep","input":{"model":{"environment":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;

    // Act
    const issues = await issuesOf(startRun(request(body), { starter, logger: silentLogger }));

    // Assert
    expect(issues).toEqual([
      {
        field: `model.environment${'[0]'.repeat(30)}`,
        given: 'an array at nesting level 33',
        expected:
          'at most 32 levels of nested objects and arrays (no run input field is nested more than a few levels deep)',
      },
    ]);
    expect(starter.calls).toEqual([]);
  });

  it('fails when the body is not JSON, naming the parse error', async () => {
    // Act
    const issues = await issuesOf(
      startRun(request('{"input": '), { starter: new RecordingStarter(), logger: silentLogger }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: '(body)',
        given: '"{\\"input\\": "',
        expected: expect.stringMatching(/^a JSON document \{ "runId"\?, "input" \} \(SyntaxError: .+\)$/),
      },
    ]);
  });

  it('fails when the body has no input, or fields beside runId and input', async () => {
    // Act
    const noInput = await issuesOf(
      startRun(request({ runId: 'a' }), { starter: new RecordingStarter(), logger: silentLogger }),
    );
    const extra = await issuesOf(
      startRun(request({ input: validInput, dryRun: true }), {
        starter: new RecordingStarter(),
        logger: silentLogger,
      }),
    );

    // Assert
    expect(noInput).toEqual([
      {
        field: '(body)',
        given: '{"runId":"a"}',
        expected: 'an object { "runId"?, "input" } with the run input under "input"',
      },
    ]);
    expect(extra).toEqual([
      {
        field: 'dryRun',
        given: 'true',
        expected:
          'no such field: the body has "runId" (optional) and "input"; the run input goes under "input"',
      },
    ]);
  });

  it('fails when the run id cannot be an execution name, listed with the input’s issues', async () => {
    // Act
    const issues = await issuesOf(
      startRun(request({ runId: 'nightly cpu', input: { ...validInput, sla: {} } }), {
        starter: new RecordingStarter(),
        logger: silentLogger,
      }),
    );

    // Assert
    expect(issues?.[0]).toEqual({
      field: 'runId',
      given: '"nightly cpu"',
      expected: '1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
    });
    expect(issues?.slice(1)).toEqual(await firstStateIssues('optimization', { ...validInput, sla: {} }));
  });

  it('fails when the input exceeds Step Functions’ 256 KiB execution input', async () => {
    // Prepare
    const input = { ...validInput, name: 'x'.repeat(300_000) };

    // Act
    const issues = await issuesOf(
      startRun(request({ input }), { starter: new RecordingStarter(), logger: silentLogger }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: '(input)',
        given: 'more than 262144 bytes of JSON',
        expected:
          "at most 262144 bytes (Step Functions' execution input quota); put large lists (payloads, inputs) in S3 and name them by URI or prefix",
      },
    ]);
  });

  it('refuses a body in another content type with 415', async () => {
    // Act
    const reply = await startRun(request({ input: validInput }, { contentType: 'text/plain' }), {
      starter: new RecordingStarter(),
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 415,
      body: {
        error: 'InvalidRequest',
        message: 'The request body must be JSON: got Content-Type text/plain, expected application/json',
      },
    });
  });

  it.each<[RunStartOutcome & { message: string }, number, string]>([
    [{ status: 'name-taken', message: 'ExecutionAlreadyExists: taken' }, 409, 'RunAlreadyExists'],
    [{ status: 'throttled', message: 'ExecutionLimitExceeded: too many' }, 429, 'Throttled'],
    [{ status: 'unavailable', message: 'InternalFailure: oops' }, 503, 'ServiceUnavailable'],
    [
      { status: 'refused', error: 'AccessDeniedException', message: 'not allowed' },
      500,
      'StartExecutionRefused',
    ],
  ])('answers a start that ended %j with %i %s', async (outcome, statusCode, error) => {
    // Act
    const reply = await startRun(request({ runId: 'nightly-cpu', input: validInput }), {
      starter: new RecordingStarter(outcome),
      logger: silentLogger,
    });

    // Assert
    expect(reply.statusCode).toBe(statusCode);
    expect(apiErrorSchema.parse(reply.body)).toEqual({
      error,
      message: expect.stringContaining(outcome.message) as unknown as string,
    });
  });
});

describe('parseStartRunEvent', () => {
  const event = {
    resource: '/async-runs',
    body: Buffer.from('{"input":{}}').toString('base64'),
    isBase64Encoded: true,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    requestContext: {
      requestId: 'req-1',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: 'v1',
    },
  };

  it('reads the workflow from the resource, the body (base64 or not) and the stage URL', () => {
    // Act
    const parsed = parseStartRunEvent(event);

    // Assert
    expect(requestOf(parsed)).toEqual({
      workflow: 'async-inference',
      body: '{"input":{}}',
      contentType: 'application/json; charset=utf-8',
      requestId: 'req-1',
      stageUrl: STAGE_URL,
    });
  });

  it('answers 400 when the resource is not a start route', () => {
    // Act
    const parsed = parseStartRunEvent({ ...event, resource: '/runs/{id}' });

    // Assert
    expect(parsed).toEqual(
      invalidRequestRefusal([
        {
          field: 'resource',
          given: '"/runs/{id}"',
          expected: 'one of /runs, /async-runs (the routes start-run serves)',
        },
      ]),
    );
  });
});
