/**
 * `npm run start:async` (= `tsx local/async-cli.ts --input examples/local-async.json`): the local
 * async-inference run. See `local/async/cli/main.ts` for the options, or run it with `--help`.
 */
import { runAsyncCli } from './async/cli/main.js';

const outcome = await runAsyncCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  handleSignals: true,
});
process.exitCode = outcome.exitCode;
