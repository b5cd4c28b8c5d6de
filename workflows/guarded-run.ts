import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { cleanUpLoop } from './clean-up-loop.js';

/** The states of the skeleton that other layers name: each workflow's contract lists them. */
export interface GuardedRunStates {
  readonly runRefused: string;
  readonly cleanUpAfterFailure: string;
  readonly runFailed: string;
  readonly runSucceeded: string;
}

export interface GuardedRunProps {
  /** The workflow's contract states (OptimizationStates, AsyncInferenceStates). */
  readonly states: GuardedRunStates;
  /** The first state: it checks the input and plans, and creates nothing. */
  readonly validate: tasks.LambdaInvoke;
  /** The errors of `validate` that refuse the run ("Run refused"); any other error fails it. */
  readonly refusedErrors: readonly string[];
  /** Why a refused run is safe, e.g. "Invalid input: nothing was created". */
  readonly refusedComment: string;
  /** The Parallel state around the run, e.g. "Optimize". */
  readonly runName: string;
  /** Everything after validation; it ends with the run's result in `$.summary`. */
  readonly run: sfn.IChainable;
  /** The workflow's clean-up step, which "Clean up after failure" rounds on. */
  readonly cleanUp: IFunction;
  /**
   * A run that ends without a failure but without its result (the optimization's "no
   * recommendation"): a Choice after the run, whose condition sends the state (`{ summary }`,
   * clean-up done) to `then`, which must end the execution. @default - every run that ends succeeds
   */
  readonly unsuccessful?: {
    readonly choiceName: string;
    readonly when: sfn.Condition;
    readonly then: sfn.IChainable;
  };
}

/**
 * The skeleton both workflows share: validate → "Run refused" on an input error (nothing exists
 * yet to clean up) → one Parallel branch whose single Catch sends every failure, with its error
 * kept, to "Clean up after failure" → "Run failed"; else "Run succeeded" with the summary.
 */
export function guardedRun(scope: Construct, props: GuardedRunProps): sfn.Chain {
  props.validate.addCatch(
    new sfn.Fail(scope, props.states.runRefused, {
      comment: props.refusedComment,
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    }),
    { errors: [...props.refusedErrors], resultPath: '$.error' },
  );

  const run = new sfn.Parallel(scope, props.runName, {
    comment: 'One branch, so that a single Catch sends every failure to clean-up',
    resultSelector: { 'summary.$': '$[0].summary' },
  })
    .branch(props.run)
    .addCatch(cleanUpAfterFailure(scope, props.states, props.cleanUp), {
      errors: ['States.ALL'],
      resultPath: '$.error',
    });

  const succeeded = new sfn.Succeed(scope, props.states.runSucceeded, { outputPath: '$.summary' });
  const { unsuccessful } = props;
  // Outside the Parallel: its Catch would send this end to "Clean up after failure".
  const end =
    unsuccessful === undefined
      ? succeeded
      : new sfn.Choice(scope, unsuccessful.choiceName)
          .when(unsuccessful.when, unsuccessful.then)
          .otherwise(succeeded);
  return props.validate.next(run).next(end);
}

/**
 * "Clean up after failure" (rounds until nothing is awaited) → "Run failed", whose cause carries
 * the clean-up's account; the whole state goes to the step, its previous account included. A
 * clean-up step that fails goes straight to "Run failed" with the run's error: the failed-run
 * clean-up (EventBridge) runs after the execution ends and retries.
 */
function cleanUpAfterFailure(scope: Construct, states: GuardedRunStates, fn: IFunction): sfn.IChainable {
  const runFailed = new sfn.Fail(scope, states.runFailed, {
    errorPath: '$.error.Error',
    causePath: '$.error.Cause',
  });
  const cleanUp = cleanUpLoop(scope, {
    name: states.cleanUpAfterFailure,
    doneName: 'Cleaned up after failure?',
    waitName: 'Wait to clean up after failure',
    fn,
    payload: '$',
    resultPath: '$.cleanUp',
  });
  const tell = new sfn.Pass(scope, 'Add clean-up account to the error', {
    inputPath: '$.cleanUp.runError',
    resultPath: '$.error',
  });
  cleanUp.done.otherwise(tell.next(runFailed));
  cleanUp.task.addCatch(runFailed, { errors: ['States.ALL'], resultPath: '$.cleanUpError' });
  return cleanUp.task;
}
