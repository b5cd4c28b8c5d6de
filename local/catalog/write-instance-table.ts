/**
 * `npm run catalog`: writes core/catalog/instance-table.ts from the installed SageMaker SDK's
 * ProductionVariantInstanceType, core/catalog/sources/instance-facts.json and the rules in
 * core/catalog/build-instance-table.ts, then formats it with Prettier as every committed file is.
 */
import { ProductionVariantInstanceType } from '@aws-sdk/client-sagemaker';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInstanceTable, renderInstanceTable } from '../../core/catalog/index.js';
import type { InstanceFactsFile } from '../../core/catalog/index.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FACTS = join(REPO_ROOT, 'core', 'catalog', 'sources', 'instance-facts.json');
const TABLE = join(REPO_ROOT, 'core', 'catalog', 'instance-table.ts');
const SDK_PACKAGE = join(REPO_ROOT, 'node_modules', '@aws-sdk', 'client-sagemaker', 'package.json');

const facts = JSON.parse(readFileSync(FACTS, 'utf8')) as InstanceFactsFile;
const sdk = JSON.parse(readFileSync(SDK_PACKAGE, 'utf8')) as { name: string; version: string };
const rows = buildInstanceTable(Object.values(ProductionVariantInstanceType), facts);
writeFileSync(TABLE, renderInstanceTable(rows, facts, sdk));
execFileSync(
  process.execPath,
  [join(REPO_ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--write', TABLE],
  {
    stdio: 'inherit',
  },
);
const unknown = rows.filter((row) => Object.values(row).includes('unknown')).length;
process.stdout.write(`${TABLE}: ${rows.length} instance types, ${unknown} with an unknown fact\n`);
