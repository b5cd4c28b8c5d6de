import { findInstance } from '../catalog/index.js';
import {
  type AsyncRunEstimate,
  type AsyncRunPlan,
  BATCH_SIZE,
  ASYNC_RUN_TIMEOUT_HOURS,
  PRICE_TABLE_SOURCE,
} from '../contracts/index.js';
import { ENDPOINT_DEADLINE_SECONDS, ESTIMATE_ASSUMPTIONS } from '../deployment/index.js';
import { SCALE_IN_DEADLINE_SECONDS } from './endpoint-loop.js';

/**
 * The cost and duration of an async run on AWS, as "Validate async run" plans it (its planning
 * half, so `plan` prints them): upper bounds, each with the assumption it rests on.
 *
 * - A deployed endpoint is billed from creation to deletion ("Deploy async endpoint" creates it
 *   with one instance), priced at the table's per instance-hour rates (SageMaker pricing,
 *   https://aws.amazon.com/sagemaker/pricing/, which lists asynchronous inference by instance-hour);
 *   creation and deletion take the optimization estimate's 10 and 2 minutes.
 * - While inputs are processed, every `maxInstanceCount` instance is counted, and each input takes
 *   its whole `invocationTimeoutSeconds`, as many at once as the run sends and the endpoint takes
 *   (`maxConcurrentInvocationsPerInstance` per instance; 1 when unset, since SageMaker then
 *   "chooses an optimal value": AsyncInferenceClientConfig,
 *   https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AsyncInferenceClientConfig.html).
 * - A benchmark first waits for zero instances (SCALE_IN_DEADLINE_SECONDS at most, at one
 *   instance), then its burst waits for a scale-out from zero (an endpoint creation's time).
 * - A kept endpoint scales in to zero after the run: counted as a benchmark's scale-in wait at
 *   `maxInstanceCount`, then nothing while at zero.
 * - A reused endpoint adds nothing: it is billed to its owner whatever the run does.
 * - Step Functions, Lambda, S3 and SNS requests are left out: cents, next to instance-hours.
 *
 * The worst duration is every wait at its deadline: the endpoint's creation, the scale-in, each
 * input's wait task (`waitTimeoutSeconds`), in the rounds the two nested Maps run them. Both
 * durations stop at the execution's timeout (ASYNC_RUN_TIMEOUT_HOURS, the workflow's default),
 * where Step Functions stops the run.
 */
export function estimateAsyncRun(plan: EstimatedPlan): AsyncRunEstimate {
  const estimate = uncappedEstimate(plan);
  if (estimate.worstDurationSeconds <= RUN_TIMEOUT_SECONDS) return estimate;
  return {
    ...estimate,
    durationSeconds: Math.min(estimate.durationSeconds, RUN_TIMEOUT_SECONDS),
    worstDurationSeconds: RUN_TIMEOUT_SECONDS,
    assumptions: [
      ...estimate.assumptions,
      `durations stop at the execution's ${ASYNC_RUN_TIMEOUT_HOURS}-hour timeout, where Step Functions stops the run`,
    ],
  };
}

const RUN_TIMEOUT_SECONDS = ASYNC_RUN_TIMEOUT_HOURS * 3600;

type EstimatedPlan = Pick<
  AsyncRunPlan,
  'itemCount' | 'batches' | 'batchConcurrency' | 'itemConcurrency' | 'invocation' | 'endpoint' | 'benchmark'
>;

function uncappedEstimate(plan: EstimatedPlan): AsyncRunEstimate {
  const { provisioningSeconds, teardownSeconds } = ESTIMATE_ASSUMPTIONS;
  const { invocation, endpoint } = plan;
  const inFlight = Math.max(1, Math.min(plan.itemCount, plan.batchConcurrency * plan.itemConcurrency));
  const deploy = endpoint.action === 'deploy' ? endpoint.deploy : undefined;
  const perInstance = deploy?.maxConcurrentInvocationsPerInstance ?? 1;
  // A reused endpoint's capacity is unknown: it is assumed to take every input in flight.
  const atOnce = deploy === undefined ? inFlight : Math.min(inFlight, deploy.maxInstanceCount * perInstance);
  const processingSeconds = Math.ceil(plan.itemCount / atOnce) * invocation.invocationTimeoutSeconds;
  const benchmark = plan.benchmark !== undefined;
  const scaleInSeconds = benchmark ? SCALE_IN_DEADLINE_SECONDS : 0;
  const scaleOutSeconds = benchmark ? provisioningSeconds : 0;
  // Each batch runs its inputs `itemConcurrency` at a time; `batchConcurrency` batches at once.
  const mapRounds =
    Math.ceil(plan.batches.length / Math.max(1, plan.batchConcurrency)) *
    Math.ceil(Math.min(BATCH_SIZE, plan.itemCount) / Math.max(1, plan.itemConcurrency));
  const inputsLine = `${plan.itemCount} input(s), ${atOnce} at a time, each taking its whole invocationTimeoutSeconds (${invocation.invocationTimeoutSeconds} s): ${processingSeconds} s`;
  const worstInputs = mapRounds * invocation.waitTimeoutSeconds;
  const benchmarkLine = benchmark
    ? [
        `a benchmark waits up to ${SCALE_IN_DEADLINE_SECONDS / 60} min for zero instances, then ${provisioningSeconds / 60} min for the scale-out from zero`,
      ]
    : [];

  if (deploy === undefined) {
    return {
      totalUsd: 0,
      durationSeconds: scaleInSeconds + scaleOutSeconds + processingSeconds,
      worstDurationSeconds: scaleInSeconds + scaleOutSeconds + worstInputs,
      assumptions: [
        `endpoint ${endpoint.endpointName} reused: $0 added (its instances are billed to its owner already)`,
        `${inputsLine} (its capacity is unknown: every input in flight processed at once)`,
        ...benchmarkLine,
      ],
    };
  }
  const usdPerHour = findInstance(deploy.instanceType)?.usdPerHour;
  const instances = deploy.maxInstanceCount;
  const afterRun = endpoint.keepAfterRun
    ? `kept after the run: billed until it scales in to zero, up to ${SCALE_IN_DEADLINE_SECONDS / 60} min at ${instances} instance(s), then $0 while at zero`
    : `deleted after the run (${teardownSeconds / 60} min at ${instances} instance(s))`;
  const instanceSeconds =
    provisioningSeconds +
    scaleInSeconds +
    instances * processingSeconds +
    instances * (endpoint.keepAfterRun ? SCALE_IN_DEADLINE_SECONDS : teardownSeconds);
  const ending = endpoint.keepAfterRun ? 0 : teardownSeconds;
  return {
    ...(usdPerHour === undefined
      ? {}
      : {
          totalUsd: roundUsd((instanceSeconds / 3600) * usdPerHour),
          usdPerHour,
          priceTable: PRICE_TABLE_SOURCE,
        }),
    durationSeconds: provisioningSeconds + scaleInSeconds + scaleOutSeconds + processingSeconds + ending,
    worstDurationSeconds: ENDPOINT_DEADLINE_SECONDS + scaleInSeconds + scaleOutSeconds + worstInputs + ending,
    assumptions: [
      ...(usdPerHour === undefined
        ? [`${deploy.instanceType} has no price in the table: the endpoint's cost is not estimated`]
        : []),
      `endpoint billed ${provisioningSeconds / 60} min while creating, at 1 instance`,
      ...benchmarkLine,
      `${inputsLine}, billed at all ${instances} instance(s) (maxInstanceCount)${deploy.maxConcurrentInvocationsPerInstance === undefined ? '; 1 invocation per instance assumed (SageMaker picks it when unset)' : ''}`,
      afterRun,
      'Step Functions, Lambda, S3 and SNS requests not counted (cents)',
    ],
  };
}

function roundUsd(value: number): number {
  return Math.round(value * 100) / 100;
}
