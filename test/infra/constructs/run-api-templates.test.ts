import { describe, expect, it } from '@jest/globals';
import {
  startedRunResponseTemplate,
  startExecutionRequestTemplate,
  startRefusedResponseTemplate,
  stepFunctionsUnavailableTemplate,
} from '../../../infra/constructs/run-api-templates.js';
import { escapeJavaScript, renderMappingTemplate } from './support/api-gateway-vtl.js';

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const REQUEST_ID = '7d1f0e52-0c3b-4f4e-9d1c-2b8f3a6e5a10';

/** A run input whose strings hold everything JSON-in-JSON escaping can get wrong. */
const TRICKY_INPUT = {
  name: 'Bob\'s "fast" model \\ v2 / ünïcode ✓\nnew line',
  payload: { uri: "s3://models/o'brien/payload.json" },
  loadPlan: { steps: [1, 4.5, 16] },
  sla: { p95LatencyMs: 150 },
  tags: { owner: "it's me" },
};

function startExecutionRequest(body: unknown): { stateMachineArn: string; name: string; input: string } {
  const { output } = renderMappingTemplate(startExecutionRequestTemplate(STATE_MACHINE_ARN), body, {
    requestId: REQUEST_ID,
  });
  return JSON.parse(output) as { stateMachineArn: string; name: string; input: string };
}

describe('the API Gateway emulation', () => {
  it('escapes as Commons Lang does: quotes, slashes, control and non-ASCII characters', () => {
    // Act
    const escaped = escapeJavaScript('it\'s "a/b" \\ é\t✓');

    // Assert
    expect(escaped).toBe('it\\\'s \\"a\\/b\\" \\\\ \\u00E9\\t\\u2713');
  });
});

describe('startExecutionRequestTemplate', () => {
  it('makes the client’s run id the execution name', () => {
    // Act
    const request = startExecutionRequest({ runId: 'nightly-cpu_2026-03-01', input: TRICKY_INPUT });

    // Assert
    expect(request.stateMachineArn).toBe(STATE_MACHINE_ARN);
    expect(request.name).toBe('nightly-cpu_2026-03-01');
  });

  it('passes the input as a JSON string that parses back to the very input, quotes and all', () => {
    // Act
    const request = startExecutionRequest({ runId: 'r1', input: TRICKY_INPUT });

    // Assert
    expect(JSON.parse(request.input)).toEqual(TRICKY_INPUT);
  });

  it('names the execution after API Gateway’s request id when the client gives no run id', () => {
    // Act
    const request = startExecutionRequest({ input: TRICKY_INPUT });

    // Assert
    expect(request.name).toBe(REQUEST_ID);
  });

  it('sends nothing but the state machine, the name and the input', () => {
    // Act
    const request = startExecutionRequest({ runId: 'r1', input: { sla: {} } });

    // Assert
    expect(Object.keys(request).sort()).toEqual(['input', 'name', 'stateMachineArn']);
  });
});

describe('startedRunResponseTemplate', () => {
  it('reads the run id back from the execution ARN and links its status', () => {
    // Prepare
    const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-cpu';

    // Act
    const { output, statusOverride } = renderMappingTemplate(
      startedRunResponseTemplate('runs'),
      { executionArn, startDate: 1772352000.123 },
      { domainName: 'abc123.execute-api.us-east-1.amazonaws.com', stage: 'v1' },
    );

    // Assert
    expect(statusOverride).toBeUndefined();
    expect(JSON.parse(output)).toEqual({
      runId: 'nightly-cpu',
      executionArn,
      startDate: 1772352000.123,
      statusUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/runs/nightly-cpu',
    });
  });
});

describe('startRefusedResponseTemplate', () => {
  const refused = (type: string, message: string) =>
    renderMappingTemplate(startRefusedResponseTemplate(), {
      __type: `com.amazonaws.swf.service.v2.model#${type}`,
      message,
    });

  it('answers 409 RunAlreadyExists when the execution name is taken, quoting Step Functions', () => {
    // Prepare
    const message =
      "Execution Already Exists: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:r1'";

    // Act
    const { output, statusOverride } = refused('ExecutionAlreadyExists', message);

    // Assert
    expect(statusOverride).toBe(409);
    const body = JSON.parse(output) as { error: string; message: string };
    expect(body.error).toBe('RunAlreadyExists');
    expect(body.message).toContain('A run with this id already exists');
    expect(body.message).toContain(`Step Functions said: ${message}`);
  });

  it.each(['InvalidName', 'InvalidExecutionInput', 'ValidationException'])(
    'keeps 400 and says InvalidRequest for %s',
    (type) => {
      // Act
      const { output, statusOverride } = refused(type, 'Invalid Execution Input: too long');

      // Assert
      expect(statusOverride).toBeUndefined();
      expect(JSON.parse(output)).toEqual({
        error: 'InvalidRequest',
        message: 'Step Functions refused the run input or name: Invalid Execution Input: too long',
      });
    },
  );

  it.each(['ExecutionLimitExceeded', 'ThrottlingException'])('answers 429 Throttled for %s', (type) => {
    // Act
    const { output, statusOverride } = refused(type, 'Rate exceeded');

    // Assert
    expect(statusOverride).toBe(429);
    expect(JSON.parse(output)).toMatchObject({ error: 'Throttled' });
  });

  it('answers 500 StartExecutionRefused when the API itself is misconfigured', () => {
    // Act
    const { output, statusOverride } = refused(
      'AccessDeniedException',
      'not authorized to perform: states:StartExecution',
    );

    // Assert
    expect(statusOverride).toBe(500);
    expect(JSON.parse(output)).toEqual({
      error: 'StartExecutionRefused',
      message:
        "Step Functions refused the API's StartExecution (com.amazonaws.swf.service.v2.model#AccessDeniedException): " +
        "not authorized to perform: states:StartExecution. The API's integration role or state machine needs fixing (see RunApi).",
    });
  });
});

describe('stepFunctionsUnavailableTemplate', () => {
  it('says the same request can be retried', () => {
    // Act
    const { output } = renderMappingTemplate(stepFunctionsUnavailableTemplate(), {
      __type: 'com.amazonaws.swf.service.v2.model#ServiceUnavailable',
      message: "Service 'states' is unavailable",
    });

    // Assert
    expect(JSON.parse(output)).toEqual({
      error: 'ServiceUnavailable',
      message:
        "Step Functions could not start the run now: Service 'states' is unavailable. Retry with the same runId: " +
        'a retry cannot start a second run.',
    });
  });
});
