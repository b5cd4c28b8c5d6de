import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import {
  generateInputSchema,
  INPUT_SCHEMAS,
  renderInputReference,
  schemaFileText,
} from '../../../local/cli/input-schemas.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const generated = INPUT_SCHEMAS.map((spec) => ({ spec, ...generateInputSchema(spec) }));
const examples = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'));

function schemaFor(example: string): string {
  if (example.includes('async')) return 'async-run-input.schema.json';
  return example.startsWith('local') ? 'local-run-input.schema.json' : 'run-input.schema.json';
}

function validatorOf(file: string) {
  const document = generated.find(({ spec }) => spec.file === file)?.document;
  if (document === undefined) throw new Error(`no schema ${file}`);
  return new Ajv({ allErrors: true, strict: false }).compile(document);
}

describe("the run inputs' JSON Schemas", () => {
  it.each(generated.map(({ spec }) => spec.file))(
    'schemas/%s is what the code generates (npm run schemas)',
    async (file) => {
      // Prepare
      const document = generated.find(({ spec }) => spec.file === file)?.document ?? {};
      const path = join(REPO_ROOT, 'schemas', file);
      const options = await resolveConfig(path);

      // Act
      const committed = readFileSync(path, 'utf8');

      // Assert: formatted as the committed file is, with the project's Prettier settings
      expect(committed).toBe(await format(schemaFileText(document), { ...options, filepath: path }));
    },
  );

  it('describes every field, and describes no field the schemas lack', () => {
    // Act
    const problems = generated.map(({ spec, undescribed, unknownDescriptions }) => ({
      file: spec.file,
      undescribed,
      unknownDescriptions,
    }));

    // Assert
    expect(problems).toEqual(
      generated.map(({ spec }) => ({ file: spec.file, undescribed: [], unknownDescriptions: [] })),
    );
  });

  it('renders docs/run-input-reference.md from the same schemas (npm run schemas)', async () => {
    // Prepare: formatted as the committed page is, with the project's Prettier settings
    const page = join(REPO_ROOT, 'docs', 'run-input-reference.md');
    const options = await resolveConfig(page);

    // Act
    const rendered = await format(renderInputReference(generated), { ...options, filepath: page });

    // Assert
    expect(readFileSync(page, 'utf8')).toBe(rendered);
  });

  it.each(examples)('examples/%s names its schema and is valid against it', (example) => {
    // Prepare
    const document = JSON.parse(readFileSync(join(EXAMPLES_DIR, example), 'utf8')) as Record<string, unknown>;
    const validate = validatorOf(schemaFor(example));

    // Act
    const valid = validate(document);

    // Assert
    expect(document.$schema).toBe(`../schemas/${schemaFor(example)}`);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fails when a field name is misspelt, as an editor shows it', () => {
    // Prepare
    const document = JSON.parse(readFileSync(join(EXAMPLES_DIR, 'cpu-sweep.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const validate = validatorOf('run-input.schema.json');

    // Act
    const valid = validate({ ...document, maxCostUSD: 5 });

    // Assert
    expect(valid).toBe(false);
    expect(validate.errors?.map((error) => [error.instancePath, error.params])).toContainEqual([
      '',
      { additionalProperty: 'maxCostUSD' },
    ]);
  });
});
