import { rmSync } from 'node:fs';
import { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { ServingOptimizerStack } from '../../infra/stacks/index.js';
import { createConfiguredApp } from '../../infra/index.js';
import { scratchDir } from '../platform/index.js';
import { type ExtractedStateMachine, extractStateMachines } from '../runner/index.js';
import { SYNTHESIS_ENV } from './synthesis-env.js';

export interface SynthesizedWorkflows {
  readonly template: Readonly<Record<string, unknown>>;
  readonly optimization: ExtractedStateMachine;
  readonly asyncInference: ExtractedStateMachine;
  /** "Clean up failed run", the safety net's second layer of clean-up. */
  readonly failedRunCleanUp: ExtractedStateMachine;
  /** The async wait task's TimeoutSeconds, as synthesized. */
  readonly asyncWaitTimeoutSeconds: number;
}

/**
 * Synthesizes the same stack `cdk synth` does (bundling skipped: local mode calls the handlers
 * in-process) and extracts its state machines, so local runs execute the deployed definitions.
 */
export function synthesizeWorkflows(): SynthesizedWorkflows {
  const outdir = scratchDir('synth');
  try {
    // Without aws-cdk-lib's built-in CloudFormation validation (about 4.7 CPU-seconds of the synth):
    // it changes no template, and `cdk synth` and the app's test suites run it on what is deployed.
    const app = createConfiguredApp({ outdir, builtinCloudFormationValidation: false });
    const stack = new ServingOptimizerStack(app, 'ServingOptimizer', { env: SYNTHESIS_ENV });
    const template = app.synth().getStackByName(stack.stackName).template as Record<string, unknown>;
    const machines = extractStateMachines(template);
    const find = (what: string, stateMachine: IConstruct | undefined): ExtractedStateMachine => {
      const resource = stateMachine?.node.defaultChild;
      const logicalId = resource instanceof CfnElement ? stack.getLogicalId(resource) : undefined;
      const found = machines.find((machine) => machine.logicalId === logicalId);
      if (found === undefined) throw new Error(`The synthesized stack has no ${what} state machine`);
      return found;
    };
    const asyncInference = stack.asyncInference;
    return {
      template,
      optimization: find('optimization', stack.optimization?.stateMachine),
      asyncInference: find('async-inference', asyncInference?.workflow.stateMachine),
      failedRunCleanUp: find('failed-run clean-up', stack.safetyNet?.failedRunCleanUp.stateMachine),
      asyncWaitTimeoutSeconds: asyncInference?.workflow.waitTimeout.toSeconds() ?? 0,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
