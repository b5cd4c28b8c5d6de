import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  RunAlreadyExistsError,
  RunApiError,
  RunNotFoundError,
  RunWaitTimeoutError,
} from '../../client/errors.js';
import { RunApiClient } from '../../client/run-api-client.js';
import type { RunInputDocument } from '../../core/contracts/run-input.js';
import type { RunStatus } from '../../core/contracts/run-api-contract.js';
import { FakeRunApi, TEST_CREDENTIALS, TEST_REGION } from './support/fake-run-api.js';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples');
const INPUT = JSON.parse(readFileSync(join(EXAMPLES, 'cpu-sweep.json'), 'utf8')) as RunInputDocument;
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-cpu';
const STARTED = {
  runId: 'nightly-cpu',
  executionArn: EXECUTION_ARN,
  startDate: 1772352000.123,
  statusUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/runs/nightly-cpu',
};

function runStatus(status: RunStatus['status'], succeeded = 0): RunStatus {
  return {
    runId: 'nightly-cpu',
    workflow: 'optimization',
    status,
    executionArn: EXECUTION_ARN,
    startDate: '2026-03-01T08:00:00.000Z',
    progress: {
      phase: 'Benchmark each candidate',
      items: { label: 'candidates', total: 4, started: 4, succeeded, failed: 0, running: 4 - succeeded },
      historyEventsRead: 120,
    },
  };
}

let api: FakeRunApi;
let client: RunApiClient;

beforeAll(async () => {
  api = await FakeRunApi.start();
  client = new RunApiClient({ apiUrl: api.url, region: TEST_REGION, credentials: TEST_CREDENTIALS });
});

afterAll(async () => {
  await api.close();
});

describe('RunApiClient', () => {
  describe('startRun', () => {
    it('signs the request with SigV4 for execute-api, as API Gateway verifies it', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: STARTED }));

      // Act
      await client.startRun(INPUT, { runId: 'nightly-cpu' });

      // Assert
      const [request] = api.requests;
      expect(request?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      expect(request?.signatureValid).toBe(true);
    });

    it('posts { runId, input } to the stage’s /runs and returns the started run', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: STARTED }));

      // Act
      const started = await client.startRun(INPUT, { runId: 'nightly-cpu' });

      // Assert
      expect(
        api.requests.map(({ method, path, headers }) => [method, path, headers['content-type']]),
      ).toEqual([['POST', '/v1/runs', 'application/json']]);
      expect(JSON.parse(api.requests[0]?.body ?? '')).toEqual({ runId: 'nightly-cpu', input: INPUT });
      expect(started).toEqual(STARTED);
    });

    it('leaves the run id to the API when none is given', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: STARTED }));

      // Act
      await client.startRun(INPUT);

      // Assert
      expect(JSON.parse(api.requests[0]?.body ?? '')).toEqual({ input: INPUT });
    });

    it('fails with RunAlreadyExistsError naming the run id when the API answers 409', async () => {
      // Prepare
      api.answer(() => ({
        status: 409,
        body: {
          error: 'RunAlreadyExists',
          message: "Step Functions said: Execution Already Exists: '…:nightly-cpu'",
        },
      }));

      // Act
      const act = client.startRun(INPUT, { runId: 'nightly-cpu' });

      // Assert
      await expect(act).rejects.toBeInstanceOf(RunAlreadyExistsError);
      await expect(client.startRun(INPUT, { runId: 'nightly-cpu' })).rejects.toMatchObject({
        name: 'RunAlreadyExistsError',
        status: 409,
        code: 'RunAlreadyExists',
        runId: 'nightly-cpu',
        message: expect.stringMatching(
          /^Run "nightly-cpu" already exists .* The API said: Step Functions said: Execution Already Exists/,
        ),
      });
    });

    it('fails naming the field before sending anything when the input is invalid', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: STARTED }));
      const { sla: _sla, ...withoutSla } = INPUT;

      // Act
      const act = client.startRun(withoutSla as RunInputDocument);

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'InvalidRunInputError',
        message: expect.stringContaining('sla: got nothing'),
      });
      expect(api.requests).toHaveLength(0);
    });

    it('fails before sending anything when the run id is not an execution name', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: STARTED }));

      // Act
      const act = client.startRun(INPUT, { runId: 'nightly cpu' });

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'InvalidRunInputError',
        message:
          'Invalid run input: runId: got "nightly cpu", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
      });
      expect(api.requests).toHaveLength(0);
    });

    it('fails with the status, code and message when the API refuses the body', async () => {
      // Prepare
      api.answer(() => ({
        status: 400,
        body: { error: 'InvalidRequest', message: 'The request body does not match the run request model' },
      }));

      // Act
      const act = client.startRun(INPUT);

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'RunApiError',
        status: 400,
        code: 'InvalidRequest',
        message:
          'POST /v1/runs answered 400 InvalidRequest: The request body does not match the run request model',
      });
    });
    it('fails with the API’s issue list, as a local refusal, when the API refuses the input', async () => {
      // Prepare
      const issue = { field: 'sla.p95LatencyMs', given: '-1', expected: 'a number above 0' };
      api.answer(() => ({
        status: 400,
        body: { error: 'InvalidRunInput', message: 'Invalid run input: …', issues: [issue] },
      }));

      // Act
      const act = client.startRun(INPUT);

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'InvalidRunInputError',
        issues: [issue],
        message: 'Invalid run input: sla.p95LatencyMs: got -1, expected a number above 0',
      });
    });
  });

  describe('without credentials', () => {
    it('fails naming where credentials are looked for, before sending anything', async () => {
      // Prepare
      const before = api.requests.length;
      const noCredentials = new RunApiClient({
        apiUrl: api.url,
        region: TEST_REGION,
        credentials: () =>
          Promise.reject(
            Object.assign(new Error('Could not load credentials from any providers'), {
              name: 'CredentialsProviderError',
            }),
          ),
      });

      // Act
      const failure = noCredentials.getRun('nightly-cpu');

      // Assert
      await expect(failure).rejects.toThrow(RunApiError);
      await expect(failure).rejects.toThrow(/No AWS credentials to sign .*AWS_PROFILE/);
      expect(api.requests.length).toBe(before);
    });
  });

  describe('startAsyncRun', () => {
    it('posts to /async-runs', async () => {
      // Prepare
      api.answer(() => ({
        status: 200,
        body: { ...STARTED, statusUrl: STARTED.statusUrl.replace('runs', 'async-runs') },
      }));

      // Act
      await client.startAsyncRun(
        { endpointName: 'mso-async', inputs: ['s3://bucket/inputs/1.json'] },
        { runId: 'batch-7' },
      );

      // Assert
      expect(api.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /v1/async-runs']);
      expect(JSON.parse(api.requests[0]?.body ?? '')).toEqual({
        runId: 'batch-7',
        input: { endpointName: 'mso-async', inputs: ['s3://bucket/inputs/1.json'] },
      });
    });
  });

  describe('getRun', () => {
    it('gets /runs/{id}, signed, and returns the typed status', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: runStatus('RUNNING', 1) }));

      // Act
      const status = await client.getRun('nightly-cpu');

      // Assert
      expect(api.requests.map(({ method, path, signatureValid }) => [method, path, signatureValid])).toEqual([
        ['GET', '/v1/runs/nightly-cpu', true],
      ]);
      expect(status).toEqual(runStatus('RUNNING', 1));
    });

    it('fails with RunNotFoundError when the API has no such run', async () => {
      // Prepare
      api.answer(() => ({
        status: 404,
        body: { error: 'RunNotFound', message: 'No optimization run "gone"' },
      }));

      // Act
      const act = client.getRun('gone');

      // Assert
      await expect(act).rejects.toBeInstanceOf(RunNotFoundError);
    });

    it('fails when a 200 body breaks the API contract, naming the field', async () => {
      // Prepare
      api.answer(() => ({ status: 200, body: { ...runStatus('RUNNING'), status: 'DONE' } }));

      // Act
      const act = client.getRun('nightly-cpu');

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'RunApiError',
        message: expect.stringMatching(
          /^GET \/v1\/runs\/nightly-cpu answered 200 with a body the run API contract does not allow: status: /,
        ),
      });
    });

    it('reports API Gateway’s own refusals, which carry only a message', async () => {
      // Prepare
      api.answer(() => ({
        status: 403,
        body: { message: 'The security token included in the request is invalid.' },
      }));

      // Act
      const act = client.getRun('nightly-cpu');

      // Assert
      await expect(act).rejects.toMatchObject({
        status: 403,
        message:
          'GET /v1/runs/nightly-cpu answered 403: The security token included in the request is invalid.',
      });
    });
  });

  describe('waitForRun', () => {
    it('polls until the run ends, reporting each status', async () => {
      // Prepare
      api.answerInTurn(
        { status: 200, body: runStatus('RUNNING', 1) },
        { status: 200, body: runStatus('RUNNING', 3) },
        { status: 200, body: runStatus('SUCCEEDED', 4) },
      );
      const seen: string[] = [];

      // Act
      const final = await client.waitForRun('nightly-cpu', {
        pollSeconds: 0.01,
        onProgress: (status) => seen.push(`${status.status} ${status.progress.items?.succeeded ?? 0}`),
      });

      // Assert
      expect(final.status).toBe('SUCCEEDED');
      expect(seen).toEqual(['RUNNING 1', 'RUNNING 3', 'SUCCEEDED 4']);
      expect(api.requests).toHaveLength(3);
    });

    it('returns a failed run’s status rather than throwing: the run ended', async () => {
      // Prepare
      api.answerInTurn({
        status: 200,
        body: { ...runStatus('FAILED'), error: 'QuotaExceededError', cause: 'ml.g5' },
      });

      // Act
      const final = await client.waitForRun('nightly-cpu', { pollSeconds: 0.01 });

      // Assert
      expect(final).toMatchObject({ status: 'FAILED', error: 'QuotaExceededError' });
    });

    it('polls through a 503 from the API', async () => {
      // Prepare
      api.answerInTurn(
        { status: 503, body: { error: 'ServiceUnavailable', message: 'Rate exceeded' } },
        { status: 200, body: runStatus('SUCCEEDED', 4) },
      );

      // Act
      const final = await client.waitForRun('nightly-cpu', { pollSeconds: 0.01 });

      // Assert
      expect(final.status).toBe('SUCCEEDED');
      expect(api.requests).toHaveLength(2);
    });

    it('fails when the API keeps answering 503 three times in a row', async () => {
      // Prepare
      api.answerInTurn({ status: 503, body: { error: 'ServiceUnavailable', message: 'Rate exceeded' } });

      // Act
      const act = client.waitForRun('nightly-cpu', { pollSeconds: 0.01 });

      // Assert
      await expect(act).rejects.toBeInstanceOf(RunApiError);
      expect(api.requests).toHaveLength(3);
    });

    it('fails with RunWaitTimeoutError when the run outlasts the wait', async () => {
      // Prepare
      api.answerInTurn({ status: 200, body: runStatus('RUNNING', 1) });

      // A clock that moves only when the client sleeps: the count of polls cannot depend on the CPU.
      let clockMs = 0;
      const sleep = (ms: number): Promise<void> => {
        clockMs += ms;
        return Promise.resolve();
      };

      // Act
      const act = client.waitForRun('nightly-cpu', {
        pollSeconds: 20,
        timeoutSeconds: 50,
        sleep,
        now: () => clockMs,
      });

      // Assert: polls at 0, 20 and 40 s; the next one would pass the 50 s deadline
      await expect(act).rejects.toBeInstanceOf(RunWaitTimeoutError);
      expect(api.requests).toHaveLength(3);
    });
  });

  it('resolves credentials on the first request, not when it is built', async () => {
    // Prepare
    let resolved = 0;
    const lazy = new RunApiClient({
      apiUrl: api.url,
      region: TEST_REGION,
      credentials: () => {
        resolved += 1;
        return Promise.resolve(TEST_CREDENTIALS);
      },
    });
    api.answer(() => ({ status: 200, body: runStatus('RUNNING') }));
    const beforeRequest = resolved;

    // Act
    await lazy.getRun('nightly-cpu');

    // Assert
    expect([beforeRequest, resolved > 0, api.requests[0]?.signatureValid]).toEqual([0, true, true]);
  });

  it('takes the region from an execute-api URL', () => {
    // Act
    const act = () => new RunApiClient({ apiUrl: 'https://abc123.execute-api.eu-west-3.amazonaws.com/v1/' });

    // Assert
    expect(act).not.toThrow();
  });

  it('fails when the API URL is not a URL', () => {
    // Act
    const act = () => new RunApiClient({ apiUrl: 'abc123/v1', region: TEST_REGION });

    // Assert
    expect(act).toThrow(
      'RunApiClient apiUrl: got "abc123/v1", expected an absolute URL such as the RunApiUrl output',
    );
  });

  it('fails when the API URL is plain HTTP to another machine: signatures and tokens would travel in clear', () => {
    // Act
    const act = () => new RunApiClient({ apiUrl: 'http://api.example.com/v1/', region: TEST_REGION });

    // Assert
    expect(act).toThrow(
      'RunApiClient apiUrl: got "http://api.example.com/v1/", expected an https:// URL (https://<id>.execute-api.<region>.amazonaws.com/<stage>/); ' +
        'http:// is accepted only for this machine (localhost, 127.0.0.1, [::1]): the requests carry signatures and session tokens',
    );
  });

  it.each(['http://127.0.0.1:8080/v1/', 'http://localhost:8080/v1/', 'http://[::1]:8080/v1/'])(
    'accepts plain HTTP to this machine (%s), as a local stand-in of the API',
    (apiUrl) => {
      // Act
      const act = () => new RunApiClient({ apiUrl, region: TEST_REGION });

      // Assert
      expect(act).not.toThrow();
    },
  );

  it.each(['us east 1', 'US-EAST-1', 'useast1', 'us-east-1a'])(
    'fails when the region is not an AWS region name (%j), before anything is signed',
    (region) => {
      // Act
      const act = () => new RunApiClient({ apiUrl: 'https://api.example.com/v1/', region });

      // Assert
      expect(act).toThrow(
        `RunApiClient region: got "${region}", expected an AWS region name such as us-east-1 or eu-west-3`,
      );
    },
  );

  it.each(['us-east-1', 'eu-west-3', 'ap-southeast-7', 'us-gov-west-1', 'cn-north-1', 'us-isob-east-1'])(
    'accepts the region %s of an AWS partition',
    (region) => {
      // Act
      const act = () => new RunApiClient({ apiUrl: 'https://api.example.com/v1/', region });

      // Assert
      expect(act).not.toThrow();
    },
  );
});
