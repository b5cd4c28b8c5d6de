import type { RecordProofEvent } from '../core/contracts/index.js';
import { recordProof } from '../core/steps/optimization/record-proof.js';
import { CloudWatchInvocationsPerInstance } from './adapters/index.js';
import { createCloudWatchClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();
/** The proof variant's InvocationsPerInstance over its window. */
const invocations = new CloudWatchInvocationsPerInstance({ client: createCloudWatchClient() });

/** States "Record proof" and "Record failed proof". */
export const handler = defineStep((event: RecordProofEvent, { logger }) =>
  recordProof(event, { store, logger, invocations }),
);
