import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnElement } from 'aws-cdk-lib';
import { ServingOptimizerStack } from '../infra/stacks/serving-optimizer-stack.js';
import { createConfiguredApp } from '../infra/synth-app.js';
import { type ExtractedStateMachine, extractStateMachines } from './runner/index.js';

/** A local stand-in account and region: the template is synthesized offline, never deployed. */
const LOCAL_ENV = { account: '000000000000', region: 'local-1' } as const;

export interface SynthesizedWorkflows {
  readonly template: Readonly<Record<string, unknown>>;
  readonly optimization: ExtractedStateMachine;
}

/**
 * Synthesizes the same stack `cdk synth` does (bundling skipped: local mode calls the handlers
 * in-process) and extracts its state machines, so local runs execute the deployed definitions.
 */
export function synthesizeWorkflows(): SynthesizedWorkflows {
  const outdir = mkdtempSync(join(tmpdir(), 'mso-synth-'));
  try {
    const app = createConfiguredApp({ outdir });
    const stack = new ServingOptimizerStack(app, 'ServingOptimizer', { env: LOCAL_ENV });
    const template = app.synth().getStackByName(stack.stackName).template as Record<string, unknown>;
    const stateMachine = stack.optimization?.stateMachine.node.defaultChild;
    const logicalId = stateMachine instanceof CfnElement ? stack.getLogicalId(stateMachine) : undefined;
    const optimization = extractStateMachines(template).find((machine) => machine.logicalId === logicalId);
    if (optimization === undefined)
      throw new Error('The synthesized stack has no optimization state machine');
    return { template, optimization };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
