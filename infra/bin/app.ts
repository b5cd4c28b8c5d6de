import { App } from 'aws-cdk-lib';
import { buildServingOptimizerApp } from '../serving-optimizer-app.js';

// The CLI sets these when it finds credentials (deploy). Without them (offline synth, CI) the
// stack is environment-agnostic: nothing here needs a context lookup.
const app = new App();
buildServingOptimizerApp(app, {
  account: process.env.CDK_DEFAULT_ACCOUNT,
  region: process.env.CDK_DEFAULT_REGION,
});
app.synth();
