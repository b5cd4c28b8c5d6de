import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_CLIENT_OPERATIONS, SERVICES, type ServiceKey } from './services.js';

/** The repository's root, from this file (test/conformance/constraints/). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Where the SDK adapters live: every AWS request the project makes is built there. */
const ADAPTERS_DIR = join(REPO_ROOT, 'lambdas', 'adapters');

export interface ProjectOperation {
  readonly service: ServiceKey;
  readonly operation: string;
}

const IMPORT = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'(@aws-sdk\/[a-z0-9-]+)'/g;

/**
 * The operations the adapters call, read from their imports: `XCommand` and `paginateX` (value
 * imports, not `type` ones) of an `@aws-sdk/*` package. `@aws-sdk/lib-dynamodb` commands count as
 * the DynamoDB operations they send.
 */
export function projectOperations(adaptersDir: string = ADAPTERS_DIR): ProjectOperation[] {
  const found = new Map<string, ProjectOperation>();
  const files = readdirSync(adaptersDir).filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const source = readFileSync(join(adaptersDir, file), 'utf8');
    for (const match of source.matchAll(IMPORT)) {
      const names = (match[1] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '' && !name.startsWith('type '));
      const pkg = match[2] ?? '';
      for (const name of names) {
        const operation = operationOf(pkg, name);
        if (operation !== undefined) found.set(`${operation.service}:${operation.operation}`, operation);
      }
    }
  }
  return [...found.values()].sort((a, b) =>
    `${a.service}:${a.operation}`.localeCompare(`${b.service}:${b.operation}`),
  );
}

function operationOf(pkg: string, name: string): ProjectOperation | undefined {
  if (pkg === '@aws-sdk/lib-dynamodb') {
    const operation = DOCUMENT_CLIENT_OPERATIONS[name];
    return operation === undefined ? undefined : { service: 'dynamodb', operation };
  }
  const service = (Object.keys(SERVICES) as ServiceKey[]).find((key) => SERVICES[key].sdkPackage === pkg);
  if (service === undefined) {
    // A command of a service the tables do not know would go unchecked: say which to add.
    if (pkg.startsWith('@aws-sdk/client-') && (name.endsWith('Command') || name.startsWith('paginate'))) {
      throw new Error(
        `The adapters call ${name} of ${pkg}, a service missing from test/conformance/constraints/services.ts: ` +
          'add it there, then regenerate the constraint table with generate-constraints.ts',
      );
    }
    return undefined;
  }
  if (name.endsWith('Command')) return { service, operation: name.slice(0, -'Command'.length) };
  if (name.startsWith('paginate')) return { service, operation: name.slice('paginate'.length) };
  return undefined;
}
