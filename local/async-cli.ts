/**
 * `npm run start:async` (= `tsx local/async-cli.ts --input examples/local-async.json`): the local
 * async-inference run. See `local/cli/async/main.ts` for the options, or run it with `--help`.
 */
import { runAsyncCli, runAsProcess } from './cli/index.js';

await runAsProcess(runAsyncCli);
