import { z } from 'zod';
import { describeError, type InputIssue, InvalidRunInputError } from './contracts/errors.js';
import { jsonBytes, STEP_FUNCTIONS_QUOTAS } from './contracts/execution-limits.js';
import { describeGiven, parseOrThrow } from './contracts/validation.js';
import type { Logger } from './ports.js';
import type { RunStarter } from './run-status/ports.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  RUN_ID_EXPECTED,
  RUN_INPUT_SCHEMAS,
  RUN_RESOURCES,
  type RunWorkflow,
  type StartedRun,
} from './run-status/run-api-contract.js';

/**
 * `POST /runs` and `POST /async-runs`: the body is checked with the workflow's own run-input
 * schema and the one input-error formatter, exactly as the workflow's first state checks it, so a
 * refusal lists the same issues (field, given, expected) whether it comes from the API, the CLIs
 * or the first state. Only then is the execution started; nothing is started for a refused body.
 *
 * What needs AWS reads (objects exist, images, quotas, the budget once the payload's size is known)
 * stays in the first state: a run refused there ends FAILED with the same issue list in its cause.
 */

export interface StartRunRequest {
  readonly workflow: RunWorkflow;
  /** The request body as received (API Gateway passes it as text). */
  readonly body: string | null;
  /** The request's `Content-Type`, when it has one. */
  readonly contentType: string | undefined;
  /** API Gateway's request id: the run id when the body names none. */
  readonly requestId: string;
  /** `https://<domain>/<stage>`: where the status URL points. */
  readonly stageUrl: string;
}

export interface StartRunDeps {
  readonly starter: RunStarter;
  readonly logger: Logger;
}

export type StartRunReply = ApiReply<StartedRun>;

/** The part of an API Gateway proxy event (REST, Lambda proxy integration) this handler reads. */
const proxyEventSchema = z.object({
  resource: z.string(),
  body: z.string().nullable(),
  isBase64Encoded: z.boolean().nullish(),
  headers: z.record(z.string(), z.string().optional()).nullish(),
  requestContext: z.object({ requestId: z.string().min(1), domainName: z.string(), stage: z.string() }),
});

/** `/runs` → optimization, `/async-runs` → async inference; the rest of the request as the core reads it. */
export function parseStartRunEvent(event: unknown): StartRunRequest {
  const parsed = proxyEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new Error(
      'start-run: got an event without resource, body or requestContext, expected an API Gateway REST ' +
        `proxy event (Lambda proxy integration of POST /${RUN_RESOURCES.optimization})`,
    );
  }
  const { resource, body, isBase64Encoded, headers, requestContext } = parsed.data;
  const entry = Object.entries(RUN_RESOURCES).find(([, path]) => resource === `/${path}`);
  if (entry === undefined) {
    const expected = Object.values(RUN_RESOURCES).map((path) => `/${path}`);
    throw new Error(`start-run: got the resource ${resource}, expected one of ${expected.join(', ')}`);
  }
  const contentType = Object.entries(headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1];
  return {
    workflow: entry[0] as RunWorkflow,
    body: body !== null && isBase64Encoded === true ? Buffer.from(body, 'base64').toString('utf8') : body,
    contentType,
    requestId: requestContext.requestId,
    stageUrl: `https://${requestContext.domainName}/${requestContext.stage}`,
  };
}

/** The fields of the request body beside the run input. */
const ENVELOPE_FIELDS: readonly string[] = ['runId', 'input'];

export async function startRun(request: StartRunRequest, deps: StartRunDeps): Promise<StartRunReply> {
  const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== undefined && mediaType !== 'application/json') {
    return apiFailure(
      415,
      ApiErrorCodes.invalidRequest,
      `The request body must be JSON: got Content-Type ${request.contentType}, expected application/json`,
    );
  }
  const checked = checkRequest(request);
  if ('issues' in checked) {
    const error = new InvalidRunInputError(checked.issues);
    return {
      statusCode: 400,
      body: { error: ApiErrorCodes.invalidRunInput, message: error.message, issues: [...checked.issues] },
    };
  }
  const { runId, input } = checked;
  const run = { workflow: request.workflow, runId };
  const outcome = await deps.starter.start({ workflow: request.workflow, name: runId, input });
  switch (outcome.status) {
    case 'started':
      deps.logger.info('Run started', { ...run, executionArn: outcome.executionArn });
      return {
        statusCode: 200,
        body: {
          runId,
          executionArn: outcome.executionArn,
          startDate: outcome.startDate.getTime() / 1000,
          statusUrl: `${request.stageUrl}/${RUN_RESOURCES[request.workflow]}/${runId}`,
        },
      };
    case 'name-taken':
      return apiFailure(
        409,
        ApiErrorCodes.runAlreadyExists,
        `A run with the id "${runId}" already exists: Step Functions accepts an execution name again only ` +
          'while that run is RUNNING with the same input (it then returns the same run), and refuses it for ' +
          `90 days otherwise. Get its status, or start with another runId. Step Functions said: ${outcome.message}`,
      );
    case 'throttled':
      return apiFailure(
        429,
        ApiErrorCodes.throttled,
        `Too many runs at once: ${outcome.message}. Retry later with the same runId: a retry cannot start a second run.`,
      );
    case 'refused':
      deps.logger.error('Step Functions refused to start a run', { ...run, error: outcome.message });
      return apiFailure(
        500,
        ApiErrorCodes.startRefused,
        `Step Functions refused StartExecution (${outcome.error}): ${outcome.message}. The start-run Lambda's ` +
          'role or the state machine it starts needs fixing (infra/constructs/run-api.ts).',
      );
    case 'unavailable':
      deps.logger.warn('Step Functions unavailable while starting a run', { ...run, error: outcome.message });
      return apiFailure(
        503,
        ApiErrorCodes.serviceUnavailable,
        `Step Functions could not start the run now: ${outcome.message}. Retry with the same runId: a retry ` +
          'cannot start a second run.',
      );
  }
}

type CheckedRequest =
  { readonly runId: string; readonly input: unknown } | { readonly issues: readonly InputIssue[] };

/**
 * The body as the first state will see it: JSON, `{ runId?, input }`, a valid run id, the input
 * valid for the workflow's schema, and an execution input within Step Functions' payload quota
 * (StartExecution refuses a larger one with InvalidExecutionInput). Every problem at once.
 */
function checkRequest(request: StartRunRequest): CheckedRequest {
  let document: unknown;
  try {
    document = JSON.parse(request.body ?? '');
  } catch (error) {
    return {
      issues: [
        {
          field: '(body)',
          given: request.body === null || request.body === '' ? 'no body' : describeGiven(request.body),
          expected: `a JSON document { "runId"?, "input" } (${describeError(error)})`,
        },
      ],
    };
  }
  if (
    typeof document !== 'object' ||
    document === null ||
    Array.isArray(document) ||
    !('input' in document)
  ) {
    return {
      issues: [
        {
          field: '(body)',
          given: describeGiven(document),
          expected: 'an object { "runId"?, "input" } with the run input under "input"',
        },
      ],
    };
  }
  const body = document as Readonly<Record<string, unknown>>;
  const issues: InputIssue[] = Object.keys(body)
    .filter((key) => !ENVELOPE_FIELDS.includes(key))
    .map((key) => ({
      field: key,
      given: describeGiven(body[key]),
      expected:
        'no such field: the body has "runId" (optional) and "input"; the run input goes under "input"',
    }));
  const runId = body.runId === undefined ? request.requestId : body.runId;
  if (typeof runId !== 'string' || describeInvalidRunId(runId) !== undefined) {
    issues.push({ field: 'runId', given: describeGiven(body.runId), expected: RUN_ID_EXPECTED });
  }
  try {
    parseOrThrow(RUN_INPUT_SCHEMAS[request.workflow], body.input);
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    issues.push(...error.issues);
  }
  const inputBytes = jsonBytes(body.input);
  if (inputBytes > STEP_FUNCTIONS_QUOTAS.maxPayloadBytes) {
    issues.push({
      field: 'input',
      given: `${inputBytes} bytes of JSON`,
      expected:
        `at most ${STEP_FUNCTIONS_QUOTAS.maxPayloadBytes} bytes (Step Functions' execution input quota); ` +
        'put large lists (payloads, inputs) in S3 and name them by URI or prefix',
    });
  }
  return issues.length > 0 || typeof runId !== 'string' ? { issues } : { runId, input: body.input };
}
