import { describe, expect, it } from '@jest/globals';
import type { CandidateDeploy } from '../../../core/report/deploy-requests.js';
import { cdkSnippet, deployFacts } from '../../../core/report/render-deploy.js';
import { createModelRequest } from '../../../core/deployment/sagemaker-requests.js';

const OUTPUT_URI = 's3://mso-artifacts/runs/r1/optimized/g5-awq/';
const IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:lmi-optimized';

/** The requests of a candidate that served an optimization job's output (uncompressed files). */
const DEPLOY: CandidateDeploy = {
  createModel: createModelRequest(
    {
      modelName: 'MODEL',
      image: IMAGE,
      modelDataUrl: OUTPUT_URI,
      modelDataUncompressed: true,
      environment: {},
      tags: {},
    },
    'ROLE',
  ),
  createEndpointConfig: {
    EndpointConfigName: 'CONFIG',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'MODEL',
        InstanceType: 'ml.g5.xlarge',
        InitialInstanceCount: 1,
      },
    ],
  },
  createEndpoint: { EndpointName: 'ENDPOINT', EndpointConfigName: 'CONFIG' },
  region: 'us-east-1',
  imageSource: 'optimization job RecommendedInferenceImage',
};

describe('the deploy snippets of an optimized candidate', () => {
  it('give the model data as ModelDataSource (uncompressed, S3Prefix), not ModelDataUrl', () => {
    // Act
    const cdk = cdkSnippet(DEPLOY);

    // Assert
    expect(DEPLOY.createModel.PrimaryContainer).not.toHaveProperty('ModelDataUrl');
    expect(cdk).toContain(
      `    modelDataSource: { s3DataSource: { s3Uri: "${OUTPUT_URI}", s3DataType: "S3Prefix", compressionType: "None" } },`,
    );
  });

  it('say where the optimized model’s files are, rather than that there is no model data', () => {
    // Act
    const [first] = deployFacts(DEPLOY);

    // Assert
    expect(first).toBe(
      `Image ${IMAGE} (optimization job RecommendedInferenceImage); model data: the optimized model's files under ${OUTPUT_URI} (ModelDataSource, uncompressed).`,
    );
  });
});
