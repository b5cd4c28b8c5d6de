import type { PackageModelEvent } from '../core/contracts/index.js';
import { packageModel } from '../core/steps/optimization/package-model.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();

/** State "Package model". */
export const handler = defineStep((event: PackageModelEvent, { logger }) =>
  packageModel(event, { store, logger }),
);
