import { App } from 'aws-cdk-lib';
import { EXIT_CODES } from '../../core/contracts/index.js';
import {
  CONFIG_FILE_CONTEXT_KEY,
  describeConfigProblem,
  loadOptimizerConfig,
  API_LOGGING_CONTEXT_KEY,
  buildServingOptimizerApp,
} from '../index.js';

// The CLI sets these when it finds credentials (deploy). Without them (offline synth, CI) the
// stack is environment-agnostic: nothing here needs a context lookup.
const app = new App();
try {
  // Schedules, e-mails, the registry trigger, the stack name, the janitor and the API's settings
  // come from optimizer.config.json (or -c configFile=…), checked here: a bad field fails the synth.
  const config = loadOptimizerConfig(app.node.tryGetContext(CONFIG_FILE_CONTEXT_KEY));
  // `-c apiLogging=…` on the command line wins over the file's value.
  const { apiLogging, ...fromFile } = config.stackProps;
  const stackProps =
    app.node.tryGetContext(API_LOGGING_CONTEXT_KEY) !== undefined || apiLogging === undefined
      ? fromFile
      : { ...fromFile, apiLogging };
  buildServingOptimizerApp(
    app,
    { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    stackProps,
    config.stackName,
  );
  app.synth();
} catch (error) {
  const problem = describeConfigProblem(error);
  if (problem === undefined) throw error;
  // The message names every bad field; a stack trace through the app's code would bury it.
  process.stderr.write(`${problem}\n`);
  // A usage error, as the project's command lines report one (core/contracts/exit-codes.ts).
  process.exitCode = EXIT_CODES.invalid;
}
