import { cleanUpRun } from '../handlers/clean-up.js';
import type { CleanUpEvent } from '../handlers/contracts/optimization-state.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { sagemakerCompiler, sagemakerHost } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });

/** State "Clean up run resources". */
export const handler = defineStep((event: CleanUpEvent, { logger }) =>
  cleanUpRun(event, { host, compiler, logger }),
);
