import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Absolute paths derived from this file's location, not from the working directory, so that
 * `cdk synth`, jest and any script resolve the same files wherever they are started from.
 */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One Lambda entry per workflow step: `lambdas/<step-name>.ts`. */
export const LAMBDA_ENTRY_DIRECTORY = join(REPO_ROOT, 'lambdas');

/** The lock file NodejsFunction hashes and bundles against (npm). */
export const DEPS_LOCK_FILE = join(REPO_ROOT, 'package-lock.json');
