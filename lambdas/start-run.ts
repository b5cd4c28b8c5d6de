import type { APIGatewayProxyResult } from 'aws-lambda';
import { parseStartRunEvent, startRun } from '../core/operations/start-run.js';
import { SfnRunStarter } from './adapters/index.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { getRequiredEnv, StepVariables } from './config.js';
import { defineStep } from './step.js';

const starter = new SfnRunStarter({ client: runApiSfnClient(), stateMachineArns: runApiStateMachineArns() });
// The API's region is the workflows' (one stack): the first state checks an input for it alike.
const servingRegion = getRequiredEnv(StepVariables.region, 'Lambda sets it');

/** `POST /runs` and `POST /async-runs` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseStartRunEvent(event), logger, (request) =>
      startRun(request, { starter, logger, servingRegion }),
    ),
);
