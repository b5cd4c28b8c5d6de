import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { constants } from 'node:os';
import { EXIT_CODES } from '../../core/contracts/index.js';
import { configProblemOfCdkArgs } from '../index.js';
import { REPO_ROOT } from '../constructs/index.js';

/**
 * `npm run synth` / `npm run deploy`: checks the config file first (exit 2 with every bad field,
 * nothing synthesized), then runs the CDK CLI with the same arguments and exits with its code.
 */
const args = process.argv.slice(2);
const problem = configProblemOfCdkArgs(args, process.cwd());
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(EXIT_CODES.invalid);
}

const cdk = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'cdk'), args, { stdio: 'inherit' });
// A signal for this process is the CLI's to handle (Ctrl-C reaches both); this process waits for it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    cdk.kill(signal);
  });
}
cdk.on('error', (error) => {
  process.stderr.write(`cannot run the CDK CLI: ${error.message}\n`);
  process.exit(EXIT_CODES.runFailed);
});
cdk.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
});
