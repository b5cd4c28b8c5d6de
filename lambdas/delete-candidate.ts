import type { DeleteCandidateEvent } from '../core/contracts/index.js';
import { deleteCandidate } from '../core/steps/optimization/delete-candidate.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { sagemakerCompiler, sagemakerHost } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });

/** State "Delete candidate endpoint". */
export const handler = defineStep((event: DeleteCandidateEvent, { logger }) =>
  deleteCandidate(event, { host, compiler, logger }),
);
