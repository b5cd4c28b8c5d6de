import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { notifyRunSummary, type RunWorkflow } from '../core/operations/notify-run-summary.js';
import { SfnExecutionDescriber, SnsPublisher } from './adapters/index.js';
import { getOptionalEnv, getRequiredEnv } from './config.js';
import { RUN_EVENT_VARIABLE_SOURCE, RunEventVariables } from './run-event-variables.js';
import { defineStep, tracer } from './step.js';
import { region } from './wiring.js';

const workflows = new Map<string, RunWorkflow>([
  [getRequiredEnv(RunEventVariables.optimizationStateMachineArn, RUN_EVENT_VARIABLE_SOURCE), 'optimization'],
]);
const asyncInference = getOptionalEnv(RunEventVariables.asyncInferenceStateMachineArn);
if (asyncInference !== undefined) workflows.set(asyncInference, 'async-inference');

const describer = new SfnExecutionDescriber({ client: tracer.captureAWSv3Client(new SFNClient({})) });
const publisher = new SnsPublisher({
  client: tracer.captureAWSv3Client(new SNSClient({})),
  topicArn: getRequiredEnv(RunEventVariables.runSummaryTopicArn, RUN_EVENT_VARIABLE_SOURCE),
});
const awsRegion = region();

/**
 * Target of the EventBridge rule on executions of the project's state machines that end: publishes
 * their summary to the run-summary topic (the event is validated by the core, never logged).
 */
export const handler = defineStep((event: unknown, { logger }) =>
  notifyRunSummary(event, { describer, publisher, logger, workflows, region: awsRegion }),
);
