import { z } from 'zod';
import { describeError, type InputIssue, InvalidRunInputError } from '../contracts/errors.js';
import {
  describeGiven,
  inputBoundIssues,
  jsonTextBoundIssues,
  parseOrThrow,
} from '../contracts/validation.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  RUN_ID_EXPECTED,
  RUN_INPUT_SCHEMAS,
  RUN_PLAN_PATH,
  RUN_RESOURCES,
  type RunWorkflow,
} from './run-api-contract.js';

/**
 * What the run API's two body-carrying routes share, `POST /<r>` (start-run) and `POST /<r>/plan`
 * (plan-run): reading the request from the proxy event, and checking its body `{ runId?, input }`
 * with the workflow's own run-input schema and the one input-error formatter, so a refusal lists
 * the same issues (field, given, expected) from either route, the CLIs and the first state.
 */

export interface RunRequest {
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

/** The part of an API Gateway proxy event (REST, Lambda proxy integration) these routes read. */
const proxyEventSchema = z.object({
  resource: z.string(),
  body: z.string().nullable(),
  isBase64Encoded: z.boolean().nullish(),
  headers: z.record(z.string(), z.string().optional()).nullish(),
  requestContext: z.object({ requestId: z.string().min(1), domainName: z.string(), stage: z.string() }),
});

/**
 * Reads a proxy event of `route` (a path with `<r>` for a workflow's resource: `/<r>` starts,
 * `/<r>/plan` plans). `handler` names the Lambda in the error a wrong event raises.
 */
export function parseRunRequestEvent(event: unknown, handler: string, route: string): RunRequest {
  const expected = Object.values(RUN_RESOURCES).map((path) => route.replace('<r>', path));
  const parsed = proxyEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new Error(
      `${handler}: got an event without resource, body or requestContext, expected an API Gateway REST ` +
        `proxy event (Lambda proxy integration of POST ${expected[0] ?? route})`,
    );
  }
  const { resource, body, isBase64Encoded, headers, requestContext } = parsed.data;
  const entry = Object.entries(RUN_RESOURCES).find(([, path]) => resource === route.replace('<r>', path));
  if (entry === undefined) {
    throw new Error(`${handler}: got the resource ${resource}, expected one of ${expected.join(', ')}`);
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

/** A body that passed every check, or the API's answer to one that did not (415 or 400). */
export type CheckedRunRequest =
  { readonly runId: string; readonly input: unknown } | { readonly refusal: ApiReply<never> };

/** The 400 answer of a refused run input: every issue, as the first state words them. */
export function invalidRunInputReply(issues: readonly InputIssue[]): ApiReply<never> {
  const error = new InvalidRunInputError(issues);
  return {
    statusCode: 400,
    body: { error: ApiErrorCodes.invalidRunInput, message: error.message, issues: [...issues] },
  };
}

/**
 * The body as the first state will see it: JSON, `{ runId?, input }`, a valid run id, the input
 * valid for the workflow's schema, and an execution input within Step Functions' payload quota
 * (StartExecution refuses a larger one with InvalidExecutionInput) and the nesting bound
 * (`inputBoundIssues`, checked first). Every problem at once once the input is within its bounds.
 */
export function checkRunRequest(request: RunRequest): CheckedRunRequest {
  const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== undefined && mediaType !== 'application/json') {
    return {
      refusal: apiFailure(
        415,
        ApiErrorCodes.invalidRequest,
        `The request body must be JSON: got Content-Type ${request.contentType}, expected application/json`,
      ),
    };
  }
  const checked = checkBody(request);
  return 'issues' in checked ? { refusal: invalidRunInputReply(checked.issues) } : checked;
}

type CheckedBody =
  { readonly runId: string; readonly input: unknown } | { readonly issues: readonly InputIssue[] };

function checkBody(request: RunRequest): CheckedBody {
  // Before JSON.parse builds them: a body nested 100,000 levels deep is refused at level 33.
  const depth = jsonTextBoundIssues(request.body ?? '', ['input']);
  if (depth.length > 0) return { issues: depth };
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
  // Depth and size first, as the first state checks them: nothing below walks an unbounded input.
  const bounds = inputBoundIssues(body.input);
  if (bounds.length > 0) return { issues: bounds };
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
  } else if (runId === RUN_PLAN_PATH) {
    // `GET /<resource>/plan` is not `GET /<resource>/{id}`: such a run could not be read here.
    issues.push({
      field: 'runId',
      given: describeGiven(runId),
      expected: `another id: /${RUN_PLAN_PATH} is the plan route, so a run named so could not be read through the API`,
    });
  }
  try {
    parseOrThrow(RUN_INPUT_SCHEMAS[request.workflow], body.input);
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    issues.push(...error.issues);
  }
  return issues.length > 0 || typeof runId !== 'string' ? { issues } : { runId, input: body.input };
}
