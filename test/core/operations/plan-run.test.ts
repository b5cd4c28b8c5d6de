import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { requestOf, invalidRequestRefusal } from '../run-status/support/proxy-events.js';
import {
  parsePlanRunEvent,
  planRun,
  type PlanRunRequest,
  type RunPlanner,
} from '../../../core/operations/plan-run.js';
import { plannedRunSchema } from '../../../core/contracts/run-api-contract.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.bin';
const validInput = {
  model: { artifactUri: MODEL_URI, framework: 'onnx', inputShape: { input: [1, 3] } },
  payload: { uri: PAYLOAD_URI },
  candidates: [{ instanceType: 'ml.c5.large' }],
  loadPlan: { steps: [1, 2], warmupSeconds: 5, stepDurationSeconds: 30 },
  sla: { p95LatencyMs: 100 },
};

function request(body: unknown, overrides: Partial<PlanRunRequest> = {}): PlanRunRequest {
  return {
    workflow: 'optimization',
    body: JSON.stringify(body),
    contentType: 'application/json',
    requestId: 'c0ffee00-1111-2222-3333-444455556666',
    stageUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1',
    ...overrides,
  };
}

/** The user's model and payload in the store, as the state would read them. */
function seededStore(): MemoryObjectStore {
  return new MemoryObjectStore().seed(MODEL_URI, 'onnx bytes').seed(PAYLOAD_URI, '{"input":[1,2,3]}');
}

function planningDeps(store: MemoryObjectStore): ValidateAndPlanDeps {
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

/** "Validate and plan" as lambdas/plan-run.ts wires it, over `store`. */
function optimizationPlanner(store: MemoryObjectStore): RunPlanner {
  return async (run) => ({ plan: await validateAndPlan(run, planningDeps(store)) });
}

describe('planRun', () => {
  it('answers with the plan "Validate and plan" makes of the same run id and input', async () => {
    // Prepare
    const store = seededStore();
    const expected = await validateAndPlan({ runId: 'nightly-cpu', input: validInput }, planningDeps(store));

    // Act
    const reply = await planRun(request({ runId: 'nightly-cpu', input: validInput }), {
      planners: { optimization: optimizationPlanner(store) },
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 200,
      body: { runId: 'nightly-cpu', workflow: 'optimization', plan: expected },
    });
    expect(plannedRunSchema.safeParse(reply.body).success).toBe(true);
  });

  it('writes nothing to the object store while planning', async () => {
    // Prepare
    const store = seededStore();
    const before = [...store.objects.keys()];

    // Act
    await planRun(request({ runId: 'nightly-cpu', input: validInput }), {
      planners: { optimization: optimizationPlanner(store) },
      logger: silentLogger,
    });

    // Assert
    expect([...store.objects.keys()]).toEqual(before);
  });

  it('refuses a run whose objects are missing with the first state’s own issue list', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'onnx bytes');
    const refusal = await validateAndPlan(
      { runId: 'nightly-cpu', input: validInput },
      planningDeps(store),
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InvalidRunInputError);
    const { message, issues } = refusal as InvalidRunInputError;

    // Act
    const reply = await planRun(request({ runId: 'nightly-cpu', input: validInput }), {
      planners: { optimization: optimizationPlanner(store) },
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({ statusCode: 400, body: { error: 'InvalidRunInput', message, issues } });
    expect(issues.map((issue) => issue.field)).toEqual(['payload.uri']);
  });

  it('refuses a run over its maxCostUsd with BudgetExceeded and the state’s message', async () => {
    // Prepare
    const input = { ...validInput, maxCostUsd: 0.01 };
    const refusal = await validateAndPlan({ runId: 'nightly-cpu', input }, planningDeps(seededStore())).catch(
      (error: unknown) => error,
    );

    // Act
    const reply = await planRun(request({ runId: 'nightly-cpu', input }), {
      planners: { optimization: optimizationPlanner(seededStore()) },
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 400,
      body: { error: 'BudgetExceeded', message: (refusal as Error).message },
    });
  });

  it('refuses a body the run-input schema refuses without asking the planner', async () => {
    // Prepare
    const asked: unknown[] = [];
    const planner: RunPlanner = (run) => {
      asked.push(run);
      return Promise.reject(new Error('not reached'));
    };

    // Act
    const reply = await planRun(request({ input: { ...validInput, slas: {} } }), {
      planners: { optimization: planner },
      logger: silentLogger,
    });

    // Assert
    expect([reply.statusCode, asked]).toEqual([400, []]);
    expect(reply.body).toEqual({
      error: 'InvalidRunInput',
      message:
        'Invalid run input: (input): got unknown field(s) "slas", expected only the documented fields (check the spelling)',
      issues: [
        {
          field: '(input)',
          given: 'unknown field(s) "slas"',
          expected: 'only the documented fields (check the spelling)',
        },
      ],
    });
  });

  it('refuses the run id "plan", which the plan route takes from GET /runs/{id}', async () => {
    // Act
    const reply = await planRun(request({ runId: 'plan', input: validInput }), {
      planners: { optimization: optimizationPlanner(seededStore()) },
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 400,
      body: {
        error: 'InvalidRunInput',
        message:
          'Invalid run input: runId: got "plan", expected another id: /plan is the plan route, so a run named so could not be read through the API',
        issues: [
          {
            field: 'runId',
            given: '"plan"',
            expected:
              'another id: /plan is the plan route, so a run named so could not be read through the API',
          },
        ],
      },
    });
  });

  it('plans a run without a run id under the API’s request id', async () => {
    // Prepare
    const asked: unknown[] = [];
    const planner: RunPlanner = (run) => {
      asked.push(run);
      return Promise.resolve({ plan: { runId: run.runId } });
    };

    // Act
    await planRun(request({ input: validInput }), {
      planners: { optimization: planner },
      logger: silentLogger,
    });

    // Assert
    expect(asked).toEqual([{ runId: 'c0ffee00-1111-2222-3333-444455556666', input: validInput }]);
  });

  it('answers 500 naming the error when planning fails for another reason', async () => {
    // Prepare
    const denied = Object.assign(
      new Error('User is not authorized to perform: servicequotas:ListServiceQuotas'),
      {
        name: 'AccessDeniedException',
      },
    );

    // Act
    const reply = await planRun(request({ runId: 'nightly-cpu', input: validInput }), {
      planners: { optimization: () => Promise.reject(denied) },
      logger: silentLogger,
    });

    // Assert
    expect(reply).toEqual({
      statusCode: 500,
      body: {
        error: 'InternalError',
        message:
          'Planning the run failed: AccessDeniedException: User is not authorized to perform: ' +
          "servicequotas:ListServiceQuotas. Nothing was created. The plan-run Lambda's logs have the " +
          'details; its role is set in infra/constructs/run-api.ts.',
      },
    });
  });

  it('answers 500 for a workflow it has no planner for', async () => {
    // Act
    const reply = await planRun(
      request(
        { input: { endpointName: 'team-async', inputs: ['s3://user-data/async/in-1.json'] } },
        {
          workflow: 'async-inference',
        },
      ),
      { planners: {}, logger: silentLogger },
    );

    // Assert
    expect(reply).toEqual({
      statusCode: 500,
      body: {
        error: 'InternalError',
        message:
          'plan-run has no planner for the async-inference workflow: the RunApi construct ' +
          '(infra/constructs/run-api.ts) routes only the workflows it deploys',
      },
    });
  });
});

describe('parsePlanRunEvent', () => {
  const event = {
    resource: '/async-runs/plan',
    body: '{"input":{}}',
    isBase64Encoded: false,
    headers: { 'Content-Type': 'application/json' },
    requestContext: {
      requestId: 'req-1',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: 'v1',
    },
  };

  it('reads the workflow from the plan resource', () => {
    // Act
    const parsed = parsePlanRunEvent(event);

    // Assert
    expect(requestOf(parsed)).toEqual({
      workflow: 'async-inference',
      body: '{"input":{}}',
      contentType: 'application/json',
      requestId: 'req-1',
      stageUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1',
    });
  });

  it('answers 400 when the resource is not a plan route', () => {
    // Act
    const parsed = parsePlanRunEvent({ ...event, resource: '/runs' });

    // Assert
    expect(parsed).toEqual(
      invalidRequestRefusal([
        {
          field: 'resource',
          given: '"/runs"',
          expected: 'one of /runs/plan, /async-runs/plan (the routes plan-run serves)',
        },
      ]),
    );
  });
});
