import type { RunWorkflow } from '../core/contracts/index.js';

/**
 * The variables of the Lambdas that start or follow runs (the Model Registry trigger, the
 * run-summary notifier, the run API's status Lambda): the constructs that create them set these
 * names, their entries read them. Kept apart from the entries, which read their environment when
 * imported.
 */
export const RunEventVariables = {
  /** The optimization state machine: started by the trigger, recognised by the notifier. */
  optimizationStateMachineArn: 'OPTIMIZATION_STATE_MACHINE_ARN',
  /** The async-inference state machine, when the stack has one. */
  asyncInferenceStateMachineArn: 'ASYNC_INFERENCE_STATE_MACHINE_ARN',
  /** The trigger's run template, as JSON (see core/contracts/approved-model-run-template.ts). */
  approvedModelRunTemplate: 'APPROVED_MODEL_RUN_TEMPLATE',
  /** The run-summary topic. */
  runSummaryTopicArn: 'RUN_SUMMARY_TOPIC_ARN',
} as const;

/**
 * The variables the run API's Lambdas and the janitor read the state machines' ARNs from, per
 * workflow (set by infra/constructs/run-api.ts and safety-net.ts).
 */
export const StateMachineVariables = {
  optimization: RunEventVariables.optimizationStateMachineArn,
  'async-inference': RunEventVariables.asyncInferenceStateMachineArn,
} as const satisfies Record<RunWorkflow, string>;

/** Where these variables come from, for the errors of a missing one. */
export const RUN_EVENT_VARIABLE_SOURCE =
  'the construct that creates the Lambda sets it (infra/constructs/model-approval-trigger.ts or ' +
  'run-notifications.ts); when running the entry outside Lambda, export it yourself';
