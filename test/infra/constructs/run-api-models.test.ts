import { readdirSync, readFileSync } from 'node:fs';
import { takeLocalCalibration } from '../../../local/cli/calibration.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import AjvDraft04Module from 'ajv-draft-04';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import {
  keepDraft4Keywords,
  startRunRequestSchema,
  toApiGatewayModelSchema,
} from '../../../infra/constructs/run-api-models.js';
import { asyncRunInputSchema } from '../../../core/contracts/async-run-input.js';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');

/** The model as API Gateway receives it: the `Schema` of the synthesized AWS::ApiGateway::Model. */
function modelOf(
  title: string,
  schema: Parameters<typeof startRunRequestSchema>[1],
): Record<string, unknown> {
  // No built-in CloudFormation validation: it costs ~3 CPU-seconds to start; the app's suites run it.
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Models');
  const api = new RestApi(stack, 'Api');
  api.root.addMethod('GET', new MockIntegration());
  api.addModel('Request', { contentType: 'application/json', schema: startRunRequestSchema(title, schema) });
  const models = Object.values(Template.fromStack(stack).findResources('AWS::ApiGateway::Model'));
  return (models[0] as { Properties: { Schema: Record<string, unknown> } }).Properties.Schema;
}

// A CommonJS module: its default export is `module.exports`, whose `default` is the class.
const AjvDraft04 = AjvDraft04Module.default;

/** A draft-4 validator, standing in for API Gateway's request validation. */
function validatorOf(model: Record<string, unknown>) {
  const ajv = new AjvDraft04({ allErrors: true, strict: false });
  return ajv.compile(model);
}

const optimizationModel = modelOf('StartOptimizationRunRequest', runInputSchema);
const validateOptimization = validatorOf(optimizationModel);
const validateAsync = validatorOf(modelOf('StartAsyncInferenceRunRequest', asyncRunInputSchema));
/** Every example (examples/async-*.json and local-async.json are async-inference inputs). */
const EXAMPLE_FILES = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));
const validOptimizationRequest = {
  runId: 'nightly-cpu',
  input: JSON.parse(readFileSync(join(EXAMPLES, 'cpu-sweep.json'), 'utf8')) as unknown,
};

describe('startRunRequestSchema', () => {
  it('is a draft-4 model of { runId?, input } with nothing else allowed', () => {
    // Assert
    expect(optimizationModel).toMatchObject({
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: 'StartOptimizationRunRequest',
      type: 'object',
      additionalProperties: false,
      required: ['input'],
      properties: { runId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,80}$' } },
    });
  });

  it('nests the optimization run input’s own shape, required fields included', () => {
    // Act
    const input = (optimizationModel.properties as Record<string, Record<string, unknown>>).input;

    // Assert
    expect(input).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['loadPlan', 'sla'],
    });
    expect(Object.keys(input?.properties as object)).toEqual(
      expect.arrayContaining(['model', 'candidates', 'loadPlan', 'sla']),
    );
  });

  it.each(EXAMPLE_FILES)('accepts the example run input %s with the model of its workflow', (file) => {
    // Prepare
    const validate = file.includes('async') ? validateAsync : validateOptimization;
    // A local example as the local CLI sends it on: its local calibration taken out.
    const { input } = takeLocalCalibration(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));

    // Act
    const valid = validate({ runId: 'example', input });

    // Assert
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('accepts a request without a run id', () => {
    // Act
    const valid = validateOptimization({ input: validOptimizationRequest.input });

    // Assert
    expect(valid).toBe(true);
  });

  it.each([
    ['the input is missing', { runId: 'r1' }],
    ['the run id has a space', { ...validOptimizationRequest, runId: 'nightly cpu' }],
    ['the run id is longer than 80 characters', { ...validOptimizationRequest, runId: 'r'.repeat(81) }],
    ['the body has an unknown field', { ...validOptimizationRequest, priority: 'high' }],
    ['the input lacks the SLA', { input: { ...(validOptimizationRequest.input as object), sla: undefined } }],
    [
      'a candidate has a misspelt field',
      {
        input: {
          ...(validOptimizationRequest.input as object),
          candidates: [{ instanceTpye: 'ml.c5.xlarge' }],
        },
      },
    ],
  ])('fails when %s', (_case, body) => {
    // Act
    const valid = validateOptimization(JSON.parse(JSON.stringify(body)));

    // Assert
    expect(valid).toBe(false);
  });

  it('models the async-inference run input for POST /async-runs', () => {
    // Act
    const model = modelOf('StartAsyncInferenceRunRequest', asyncRunInputSchema);

    // Assert
    const input = (model.properties as Record<string, Record<string, unknown>>).input;
    expect(Object.keys(input?.properties as object)).toEqual(
      expect.arrayContaining(['endpointName', 'inputs']),
    );
  });
});

describe('toApiGatewayModelSchema', () => {
  it.each([
    ['optimization', runInputSchema],
    ['async-inference', asyncRunInputSchema],
  ])(
    'keeps the whole %s schema: zod’s draft-4 output has nothing newer to remove, and no $ref',
    (_name, schema) => {
      // Act
      const { schema: converted, removed } = toApiGatewayModelSchema(schema);

      // Assert
      expect(removed).toEqual([]);
      expect(JSON.stringify(converted)).not.toContain('$ref');
    },
  );
});

describe('keepDraft4Keywords', () => {
  it('removes newer keywords and formats, writes const as enum, and leaves property names alone', () => {
    // Prepare
    const schema = {
      type: 'object',
      examples: [{}],
      properties: {
        const: { const: 'fixed' },
        id: { type: 'string', format: 'uuid' },
        at: { type: 'string', format: 'date-time' },
        env: {
          type: 'object',
          propertyNames: { pattern: '^[A-Z]+$' },
          additionalProperties: { type: 'string' },
        },
        list: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'string', $comment: 'x' } },
      },
      anyOf: [{ required: ['id'], if: { required: ['at'] } }],
    };

    // Act
    const { schema: converted, removed } = keepDraft4Keywords(schema);

    // Assert
    expect(converted).toEqual({
      type: 'object',
      properties: {
        const: { enum: ['fixed'] },
        id: { type: 'string' },
        at: { type: 'string', format: 'date-time' },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        list: { type: 'array', items: { type: 'string' } },
      },
      anyOf: [{ required: ['id'] }],
    });
    expect(removed).toEqual([
      '/examples',
      '/properties/id/format',
      '/properties/env/propertyNames',
      '/properties/list/prefixItems',
      '/properties/list/items/$comment',
      '/anyOf/0/if',
    ]);
  });
});
