import type { z } from 'zod';
import {
  BudgetExceededError,
  InvalidRunInputError,
  describeGiven,
  apiErrorSchema,
  type ApiError,
  ApiErrorCodes,
  describeInvalidRunId,
  type ExecutionStatus,
  isTerminalStatus,
  type PlannedRun,
  plannedRunSchema,
  type ReportLinks,
  reportLinksSchema,
  RUN_ID_EXPECTED,
  RUN_PLAN_PATH,
  RUN_RESOURCES,
  RUN_SUBRESOURCES,
  type RunEvents,
  runEventsSchema,
  type RunList,
  runListSchema,
  type RunStatus,
  runStatusSchema,
  type RunWorkflow,
  RunWorkflows,
  type StartedRun,
  startedRunSchema,
  type StoppedRun,
  stoppedRunSchema,
} from '../core/contracts/index.js';
import type { RunInputDocument, asyncRunInputSchema } from '../core/contracts/index.js';
import { parseAsyncRunInput, parseRunInput } from '../core/planning/index.js';
import { RunAlreadyExistsError, RunApiError, RunNotFoundError, RunWaitTimeoutError } from './errors.js';
import {
  AWS_REGION_EXPECTED,
  type Credentials,
  ExecuteApiSigner,
  isAwsRegion,
  regionOfApiUrl,
} from './sigv4.js';

/**
 * A typed client of the run API (infra/constructs/run-api.ts): every request SigV4-signed for
 * `execute-api`, every answer checked against the API's contract (core/contracts/run-api-contract.ts).
 * Run inputs are validated locally first, with the workflows' own checks (core/planning's
 * run-input-check.ts and async-run-input-check.ts), so a mistake is reported field by field before
 * anything is sent.
 */

export type AsyncRunInputDocument = z.input<typeof asyncRunInputSchema>;

export interface RunApiClientOptions {
  /** The API's stage URL: the stack's `RunApiUrl` output, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com/v1/`. */
  readonly apiUrl: string;
  /** @default - the region in the URL's host, else AWS_REGION */
  readonly region?: string;
  /** @default - the Node.js default credential chain, resolved on the first request */
  readonly credentials?: Credentials;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Each request's limit. @default 30_000 */
  readonly requestTimeoutMs?: number;
}

export interface StartRunOptions {
  /**
   * The execution name: a retried request with the same id starts no second run.
   * @default - the API's request id
   */
  readonly runId?: string;
}

export interface ListRunsOptions {
  /** @default 'optimization' */
  readonly workflow?: RunWorkflow;
  readonly status?: ExecutionStatus;
  /** Runs started at or after this date. */
  readonly since?: Date;
  /** @default 50 (the API's default) */
  readonly limit?: number;
}

export interface WaitForRunOptions {
  /** @default 'optimization' */
  readonly workflow?: RunWorkflow;
  /** Runs take minutes to hours. @default 30 */
  readonly pollSeconds?: number;
  /** @default 86_400 (the optimization workflow's 24-hour execution timeout) */
  readonly timeoutSeconds?: number;
  /** Called with every status read, the last one included. */
  readonly onProgress?: (status: RunStatus) => void;
  /** @default setTimeout */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /** The clock the wait's deadline is kept on, in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** Answers worth another poll: throttling and the API's or Step Functions' unavailability. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([0, 429, 502, 503, 504]);
/** `waitForRun` gives up after this many failed polls in a row. */
const MAX_CONSECUTIVE_POLL_FAILURES = 3;

export class RunApiClient {
  private readonly baseUrl: URL;
  private readonly signer: ExecuteApiSigner;
  private readonly fetch: typeof fetch;
  private readonly requestTimeoutMs: number;

  constructor(options: RunApiClientOptions) {
    this.baseUrl = parseApiUrl(options.apiUrl);
    const region = options.region ?? regionOfApiUrl(this.baseUrl) ?? process.env.AWS_REGION;
    if (region === undefined || region === '') {
      throw new Error(
        `RunApiClient: cannot tell the region of ${options.apiUrl}: expected an execute-api URL ` +
          '(https://<id>.execute-api.<region>.amazonaws.com/<stage>/), the region option or AWS_REGION',
      );
    }
    if (!isAwsRegion(region)) {
      throw new Error(`RunApiClient region: got ${describeGiven(region)}, expected ${AWS_REGION_EXPECTED}`);
    }
    this.signer = new ExecuteApiSigner(region, options.credentials);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /** `POST /runs`: starts an optimization run. */
  async startRun(input: RunInputDocument, options: StartRunOptions = {}): Promise<StartedRun> {
    parseRunInput(input);
    return await this.start(RunWorkflows.optimization, input, options);
  }

  /** `POST /async-runs`: starts an async-inference run. */
  async startAsyncRun(input: AsyncRunInputDocument, options: StartRunOptions = {}): Promise<StartedRun> {
    parseAsyncRunInput(input);
    return await this.start(RunWorkflows.asyncInference, input, options);
  }

  /**
   * `POST /runs/plan`: the plan "Validate and plan" makes of this input, with every check it runs on
   * AWS (objects, images, quotas, budgets, the cost estimate); nothing is created. A refused input
   * throws InvalidRunInputError with the state's issues, a run over `maxCostUsd` BudgetExceededError.
   */
  async planRun(input: RunInputDocument, options: StartRunOptions = {}): Promise<PlannedRun> {
    parseRunInput(input);
    return await this.plan(RunWorkflows.optimization, input, options);
  }

  /**
   * `POST /async-runs/plan`: the plan "Validate async run" makes of this input (without writing
   * its manifest), and the inputs it would send; nothing is created.
   */
  async planAsyncRun(input: AsyncRunInputDocument, options: StartRunOptions = {}): Promise<PlannedRun> {
    parseAsyncRunInput(input);
    return await this.plan(RunWorkflows.asyncInference, input, options);
  }

  /** `GET /runs/{id}`: an optimization run's status, progress and report location. */
  getRun(runId: string): Promise<RunStatus> {
    return this.get(RunWorkflows.optimization, runId);
  }

  /** `GET /async-runs/{id}`. */
  getAsyncRun(runId: string): Promise<RunStatus> {
    return this.get(RunWorkflows.asyncInference, runId);
  }

  /** `GET /runs` (or `/async-runs`): the workflow's runs, newest first. */
  async listRuns(options: ListRunsOptions = {}): Promise<RunList> {
    const query = new URLSearchParams();
    if (options.status !== undefined) query.set('status', options.status);
    if (options.since !== undefined) query.set('since', options.since.toISOString());
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const path = RUN_RESOURCES[options.workflow ?? RunWorkflows.optimization];
    const response = await this.send('GET', query.size === 0 ? path : `${path}?${query.toString()}`);
    return this.parseSuccess(response, runListSchema);
  }

  /** `POST /runs/{id}/stop`: stops a running run (it ends ABORTED). */
  async stopRun(runId: string, workflow: RunWorkflow = RunWorkflows.optimization): Promise<StoppedRun> {
    return this.parseSuccess(
      await this.sendForRun('POST', workflow, runId, RUN_SUBRESOURCES.stop),
      stoppedRunSchema,
    );
  }

  /** `GET /runs/{id}/events`: the newest `limit` progress events of a run, oldest first. */
  async runEvents(
    runId: string,
    options: { readonly workflow?: RunWorkflow; readonly limit?: number } = {},
  ): Promise<RunEvents> {
    const suffix = `${RUN_SUBRESOURCES.events}${options.limit === undefined ? '' : `?limit=${options.limit}`}`;
    return this.parseSuccess(
      await this.sendForRun('GET', options.workflow ?? RunWorkflows.optimization, runId, suffix),
      runEventsSchema,
    );
  }

  /** `GET /runs/{id}/report`: presigned links to the run's report files. */
  async reportLinks(runId: string, workflow: RunWorkflow = RunWorkflows.optimization): Promise<ReportLinks> {
    return this.parseSuccess(
      await this.sendForRun('GET', workflow, runId, RUN_SUBRESOURCES.report),
      reportLinksSchema,
    );
  }

  /**
   * Polls the run until it ends (SUCCEEDED, FAILED, TIMED_OUT, ABORTED) and returns its last status,
   * whatever it is. Throttling and unavailability are polled through, up to three times in a row.
   */
  async waitForRun(runId: string, options: WaitForRunOptions = {}): Promise<RunStatus> {
    const pollSeconds = options.pollSeconds ?? 30;
    const timeoutSeconds = options.timeoutSeconds ?? 86_400;
    if (!(pollSeconds > 0) || !(timeoutSeconds > 0)) {
      throw new Error(
        `waitForRun: got pollSeconds ${pollSeconds} and timeoutSeconds ${timeoutSeconds}, expected both above 0`,
      );
    }
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const now = options.now ?? Date.now;
    const deadline = now() + timeoutSeconds * 1000;
    let failures = 0;
    let lastStatus = 'unknown';
    for (;;) {
      try {
        const status = await this.get(options.workflow ?? RunWorkflows.optimization, runId);
        failures = 0;
        lastStatus = status.status;
        options.onProgress?.(status);
        if (isTerminalStatus(status.status)) return status;
      } catch (error) {
        failures += 1;
        const retryable = error instanceof RunApiError && RETRYABLE_STATUSES.has(error.status);
        if (!retryable || failures >= MAX_CONSECUTIVE_POLL_FAILURES) throw error;
      }
      if (now() + pollSeconds * 1000 > deadline) {
        throw new RunWaitTimeoutError(runId, timeoutSeconds, lastStatus);
      }
      await sleep(pollSeconds * 1000);
    }
  }

  private async start(workflow: RunWorkflow, input: unknown, options: StartRunOptions): Promise<StartedRun> {
    if (options.runId !== undefined) checkRunId(options.runId);
    const body = JSON.stringify({ ...(options.runId === undefined ? {} : { runId: options.runId }), input });
    const response = await this.send('POST', RUN_RESOURCES[workflow], body);
    // The API checks the input as the first state does: its issues read as a local refusal's.
    if (response.status === 400 && response.error.issues !== undefined && response.error.issues.length > 0) {
      throw new InvalidRunInputError(response.error.issues);
    }
    if (response.status === 409) {
      throw new RunAlreadyExistsError(
        options.runId ?? '(generated)',
        response.error.message,
        response.error.error,
      );
    }
    return this.parseSuccess(response, startedRunSchema);
  }

  private async plan(workflow: RunWorkflow, input: unknown, options: StartRunOptions): Promise<PlannedRun> {
    if (options.runId !== undefined) checkRunId(options.runId);
    const body = JSON.stringify({ ...(options.runId === undefined ? {} : { runId: options.runId }), input });
    const response = await this.send('POST', `${RUN_RESOURCES[workflow]}/${RUN_PLAN_PATH}`, body);
    if (response.status === 400 && response.error.issues !== undefined && response.error.issues.length > 0) {
      throw new InvalidRunInputError(response.error.issues);
    }
    if (response.status === 400 && response.error.error === ApiErrorCodes.budgetExceeded) {
      throw new BudgetExceededError(response.error.message);
    }
    return this.parseSuccess(response, plannedRunSchema);
  }

  private async get(workflow: RunWorkflow, runId: string): Promise<RunStatus> {
    return this.parseSuccess(await this.sendForRun('GET', workflow, runId), runStatusSchema);
  }

  /** A request about one run (`/<resource>/{id}[/suffix]`); a 404 RunNotFound becomes RunNotFoundError. */
  private async sendForRun(
    method: 'GET' | 'POST',
    workflow: RunWorkflow,
    runId: string,
    suffix?: string,
  ): Promise<ApiResponse> {
    checkRunId(runId);
    const path = `${RUN_RESOURCES[workflow]}/${runId}${suffix === undefined ? '' : `/${suffix}`}`;
    const response = await this.send(method, path);
    if (response.status === 404 && response.error.error === ApiErrorCodes.runNotFound) {
      throw new RunNotFoundError(runId, response.error.message, response.error.error);
    }
    return response;
  }

  private parseSuccess<Schema extends z.ZodType>(response: ApiResponse, schema: Schema): z.output<Schema> {
    const { status, call, document, error } = response;
    if (status < 200 || status > 299) {
      throw new RunApiError(
        `${call} answered ${status}${error.error === undefined ? '' : ` ${error.error}`}: ${error.message}`,
        status,
        error.error,
      );
    }
    const parsed = schema.safeParse(document);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
      );
      throw new RunApiError(
        `${call} answered ${status} with a body the run API contract does not allow: ${issues.join('; ')}`,
        status,
      );
    }
    return parsed.data;
  }

  private async send(method: 'GET' | 'POST', path: string, body?: string): Promise<ApiResponse> {
    const url = new URL(path, this.baseUrl);
    const call = `${method} ${url.pathname}`;
    const { headers } = await this.signer.sign({ method, url, ...(body === undefined ? {} : { body }) });
    // fetch sets Host itself, from the URL: the value that was signed.
    const { host: _host, ...sent } = headers;
    let response: Response;
    try {
      response = await this.fetch(url, {
        method,
        headers: sent,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      const reason =
        error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
      throw new RunApiError(`${call} failed before any answer: ${String(error)}${reason}`, 0, undefined, {
        cause: error,
      });
    }
    const text = await response.text();
    const document = parseJson(text);
    const apiError = apiErrorSchema.safeParse(document);
    return {
      status: response.status,
      call,
      document,
      error: apiError.success ? apiError.data : { message: text.slice(0, 500) || response.statusText },
    };
  }
}

interface ApiResponse {
  readonly status: number;
  readonly call: string;
  readonly document: unknown;
  /** The body read as the API's error shape (only meaningful when the status is not 2xx). */
  readonly error: ApiError;
}

/** A run id is checked before any request: it becomes part of the URL or the execution name. */
function checkRunId(runId: string): void {
  if (describeInvalidRunId(runId) === undefined) return;
  throw new InvalidRunInputError([
    { field: 'runId', given: describeGiven(runId), expected: RUN_ID_EXPECTED },
  ]);
}

/**
 * Why `apiUrl` cannot be the run API's URL, or `undefined` when it can: it must be absolute, and
 * HTTPS unless it names this machine (a local stand-in). Every request carries a SigV4 signature
 * and, with temporary credentials, the session token (`x-amz-security-token`): neither may travel
 * in clear over a network ("Use SSL/TLS to communicate with AWS resources. We require TLS 1.2",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/data-protection.html).
 */
export function describeInvalidApiUrl(apiUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return `got ${describeGiven(apiUrl)}, expected an absolute URL such as the RunApiUrl output (${API_URL_EXAMPLE})`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return (
    `got ${describeGiven(apiUrl)}, expected an https:// URL (${API_URL_EXAMPLE}); http:// is accepted only ` +
    'for this machine (localhost, 127.0.0.1, [::1]): the requests carry signatures and session tokens'
  );
}

const API_URL_EXAMPLE = 'https://<id>.execute-api.<region>.amazonaws.com/<stage>/';

/** `localhost`, 127.0.0.0/8 and ::1 (RFC 6761 section 6.3, RFC 1122 section 3.2.1.3, RFC 4291). */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

function parseApiUrl(apiUrl: string): URL {
  const problem = describeInvalidApiUrl(apiUrl);
  if (problem !== undefined) throw new Error(`RunApiClient apiUrl: ${problem}`);
  const url = new URL(apiUrl);
  // A trailing slash keeps the stage when resolving `runs/…` against it.
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
