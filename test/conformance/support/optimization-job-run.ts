/**
 * The optimization-job example of the conformance runs: an LLM on ml.g5, an AWQ-quantized candidate
 * beside the plain one, its model a real model.tar.gz ("Package model" unpacks it for the job's
 * source) and its prompt streamed in TGI's format. One definition for the suites that run it.
 */
import { buildModelArchive } from '../../../core/deployment/model-archive.js';
import type { SynthesizedWorkflows } from '../../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, withUnmissableSla } from '../aws-harness.js';

export const MODEL_URI = `s3://${ARTIFACTS_BUCKET}/models/llm/model.tar.gz`;
export const PAYLOAD_URI = `s3://${ARTIFACTS_BUCKET}/models/llm/prompt.json`;
export const PLAIN_IMAGE =
  '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124';
/** What the fake's DescribeOptimizationJob recommends (fake-aws/sagemaker-service.ts). */
export const RECOMMENDED_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:lmi-optimized';

export const OPTIMIZATION_JOB_INPUT = {
  name: 'LLM on ml.g5: AWQ-quantized vs plain',
  model: { artifactUri: MODEL_URI, framework: 'pytorch', frameworkVersion: '2.1', image: PLAIN_IMAGE },
  payload: { uri: PAYLOAD_URI, contentType: 'application/json' },
  compilation: {
    maxRuntimeSeconds: 1800,
    optimizations: [
      {
        id: 'g5-awq',
        deploymentInstanceType: 'ml.g5.xlarge',
        techniques: { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } },
        acceptEula: true,
      },
    ],
  },
  candidates: [
    { id: 'g5-plain', instanceType: 'ml.g5.xlarge' },
    { id: 'g5-awq', instanceType: 'ml.g5.xlarge', optimizedBy: 'g5-awq' },
  ],
  loadPlan: {
    model: 'closed',
    steps: [1],
    warmupSeconds: 0,
    stepDurationSeconds: 0.1,
    stopAtPlateau: false,
    kneeProbes: 0,
    response: { mode: 'stream', format: 'tgi' },
  },
  sla: { ttftP95Ms: 1000 },
};

/** Runs the example in a new harness: the harness, the run's status and its output (or result). */
export async function runOptimizationJobExample(
  workflows: SynthesizedWorkflows,
  runId: string,
): Promise<{ harness: AwsHarness; status: string; output: unknown }> {
  const harness = new AwsHarness();
  // A model directory packaged as a model.tar.gz: "Package model" unpacks it for the job's source.
  harness.s3.seed(
    MODEL_URI,
    await buildModelArchive({ modelFileName: 'config.json', modelBytes: new TextEncoder().encode('{}') }),
  );
  harness.s3.seed(PAYLOAD_URI, '{"inputs":"Hello","parameters":{"max_new_tokens":2},"stream":true}');
  const result = await harness.runOptimization({
    workflows,
    input: withUnmissableSla(OPTIMIZATION_JOB_INPUT),
    runId,
    streamFormat: 'tgi',
  });
  return { harness, status: result.status, output: 'output' in result ? result.output : result };
}
