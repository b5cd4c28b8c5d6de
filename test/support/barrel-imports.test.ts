/**
 * jest's transform turns each named import of a room's index into imports of the modules that
 * define the names, and leaves alone what it cannot map exactly. Each case runs the transform's
 * own steps over a tree held in memory: esbuild prints the module, then the rewrite.
 */
import { describe, expect, it } from '@jest/globals';
import { transformSync } from 'esbuild';
import { createBarrelImports } from './barrel-imports.js';

const TSCONFIG_RAW = { compilerOptions: { verbatimModuleSyntax: true } };
const IMPORTER = '/repo/core/steps/step.ts';

/** The rewrite over `tree` (absolute path -> source), and how each module was printed and rewritten. */
function barrelsOver(tree: Record<string, string>) {
  const files = new Map(Object.entries(tree));
  const barrels = createBarrelImports({ readSource: (path) => files.get(path), tsconfigRaw: TSCONFIG_RAW });
  const print = (source: string) =>
    transformSync(source, { loader: 'ts', format: 'esm', tsconfigRaw: TSCONFIG_RAW }).code;
  return {
    files,
    barrels,
    print,
    rewrite: (source: string, path = IMPORTER) => barrels.rewrite(print(source), path),
  };
}

const ROOM = {
  '/repo/core/room/index.ts': [
    "export { alpha, beta as renamed } from './alpha.js';",
    "export { gamma, type Gamma } from './gamma.js';",
    "export type { Delta } from './delta.js';",
    '',
  ].join('\n'),
  '/repo/core/room/alpha.ts': 'export const alpha = 1;\nexport const beta = 2;\n',
  '/repo/core/room/gamma.ts': 'export type Gamma = number;\nexport const gamma = 3;\n',
  '/repo/core/room/delta.ts': 'export interface Delta { readonly d: number }\n',
};

describe('imports of an index in jest', () => {
  it('name the modules that define the names', () => {
    // Prepare
    const { rewrite } = barrelsOver(ROOM);

    // Act
    const code = rewrite("import { alpha, gamma } from '../room/index.js';\nconsole.log(alpha, gamma);\n");

    // Assert
    expect(code).toBe(
      'import { alpha } from "../room/alpha.js"; import { gamma } from "../room/gamma.js";\nconsole.log(alpha, gamma);\n',
    );
  });

  it('follow a renamed re-export, and keep the importer’s own alias', () => {
    // Prepare
    const { rewrite } = barrelsOver(ROOM);

    // Act
    const code = rewrite(
      "import { renamed, renamed as again, alpha as first } from '../room/index.js';\nconsole.log(renamed, again, first);\n",
    );

    // Assert
    expect(code.split('\n')[0]).toBe(
      'import { beta as renamed, beta as again, alpha as first } from "../room/alpha.js";',
    );
  });

  it('drop the type specifiers of a mixed import and map its values', () => {
    // Prepare
    const { rewrite } = barrelsOver(ROOM);

    // Act
    const code = rewrite(
      "import { type Delta, gamma, type Gamma } from '../room/index.js';\nexport const d: Delta | Gamma = gamma;\n",
    );

    // Assert
    expect(code.split('\n')[0]).toBe('import { gamma } from "../room/gamma.js";');
  });

  it('keep the lines of a multi-line import, so the source map still fits', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = [
      'import {',
      '  alpha,',
      '  gamma,',
      "} from '../room/index.js';",
      'export const sum = alpha + gamma;',
      '',
    ].join('\n');

    // Act
    const before = print(source).split('\n');
    const after = rewrite(source).split('\n');

    // Assert
    expect(before[0]).toBe('import {');
    expect(after).toHaveLength(before.length);
    expect(after[0]).toBe(
      'import { alpha } from "../room/alpha.js"; import { gamma } from "../room/gamma.js";',
    );
    expect(after.indexOf('export const sum = alpha + gamma;')).toBe(
      before.indexOf('export const sum = alpha + gamma;'),
    );
  });

  it('rewrite a re-export of an index from another module', () => {
    // Prepare
    const { rewrite } = barrelsOver(ROOM);

    // Act
    const code = rewrite("export { alpha as first } from '../room/index.js';\n");

    // Assert
    expect(code).toContain('import { alpha } from "../room/alpha.js";');
    expect(code).not.toContain('index.js');
  });

  it('leaves a namespace import alone', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = "import * as room from '../room/index.js';\nconsole.log(room.alpha);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('leaves a default import alone, with the names beside it', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = "import room, { alpha } from '../room/index.js';\nconsole.log(room, alpha);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('leaves an import of type names only alone, as it still evaluates the index', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = "import { type Delta } from '../room/index.js';\nexport const d: Delta = { d: 1 };\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toContain('import {} from "../room/index.js";');
    expect(code).toBe(print(source));
  });

  it('leaves the whole import alone when the index declares one of its names', () => {
    // Prepare
    const { print, rewrite } = barrelsOver({
      ...ROOM,
      '/repo/core/room/index.ts': `${ROOM['/repo/core/room/index.ts']}export const OWN = 'own';\n`,
    });
    const source = "import { alpha, OWN } from '../room/index.js';\nconsole.log(alpha, OWN);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('leaves an import alone when the index does not export one of its names', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = "import { alpha, missing } from '../room/index.js';\nconsole.log(alpha, missing);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('leaves imports of modules that are not an index alone', () => {
    // Prepare
    const { print, rewrite } = barrelsOver({
      ...ROOM,
      '/repo/core/room/runs-index.ts': 'export const r = 1;\n',
    });
    const source =
      "import { alpha } from '../room/alpha.js';\nimport { r } from '../room/runs-index.js';\nconsole.log(alpha, r);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('leaves an import that follows other code alone', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(ROOM);
    const source = "console.log('first');\nimport { alpha } from '../room/index.js';\nconsole.log(alpha);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });
});

describe('names an index offers through export *', () => {
  const STARS = {
    '/repo/core/engine/index.ts': [
      "export * from './clock.js';",
      "export * from './plan.js';",
      "export type * from './ports.js';",
      "export { tick as tock } from './clock.js';",
      "export * from './streaming/index.js';",
      '',
    ].join('\n'),
    '/repo/core/engine/clock.ts':
      'export const tick = 1;\nexport function now() { return 0; }\nexport const shared = 1;\n',
    '/repo/core/engine/plan.ts':
      "export * from './plan-parts.js';\nexport class Plan {}\nexport const shared = 2;\n",
    '/repo/core/engine/plan-parts.ts': 'export const part = 1;\n',
    '/repo/core/engine/ports.ts': 'export interface Port { readonly p: number }\n',
    '/repo/core/engine/streaming/index.ts': "export { parse } from './parser.js';\n",
    '/repo/core/engine/streaming/parser.ts': 'export const parse = () => 1;\n',
  };

  it('come from the module that exports them as a whole', () => {
    // Prepare
    const { rewrite } = barrelsOver(STARS);

    // Act
    const code = rewrite(
      "import { now, Plan, tock } from '../engine/index.js';\nconsole.log(now, Plan, tock);\n",
    );

    // Assert
    expect(code.split('\n')[0]).toBe(
      'import { now, tick as tock } from "../engine/clock.js"; import { Plan } from "../engine/plan.js";',
    );
  });

  it('come through the next index to its module', () => {
    // Prepare
    const { rewrite } = barrelsOver(STARS);

    // Act
    const code = rewrite("import { parse } from '../engine/index.js';\nconsole.log(parse);\n");

    // Assert
    expect(code.split('\n')[0]).toBe('import { parse } from "../engine/streaming/parser.js";');
  });

  it('come from a star target that has them through its own export *', () => {
    // Prepare
    const { rewrite } = barrelsOver(STARS);

    // Act
    const code = rewrite("import { part } from '../engine/index.js';\nconsole.log(part);\n");

    // Assert
    expect(code.split('\n')[0]).toBe('import { part } from "../engine/plan.js";');
  });

  it('are left to the index when two of them offer the same name', () => {
    // Prepare
    const { print, rewrite } = barrelsOver(STARS);
    const source = "import { shared } from '../engine/index.js';\nconsole.log(shared);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('give way to a name the index declares itself', () => {
    // Prepare
    const { print, rewrite } = barrelsOver({
      ...STARS,
      '/repo/core/engine/index.ts': `${STARS['/repo/core/engine/index.ts']}export const now = 'own';\n`,
    });
    const source = "import { now } from '../engine/index.js';\nconsole.log(now);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });

  it('are left to the index when a module it exports as a whole has an export * after other code', () => {
    // Prepare
    const { print, rewrite } = barrelsOver({
      ...STARS,
      '/repo/core/engine/plan.ts':
        "export class Plan {}\nconsole.log('loaded');\nexport * from './plan-parts.js';\n",
    });
    const source = "import { Plan, now } from '../engine/index.js';\nconsole.log(Plan, now);\n";

    // Act
    const code = rewrite(source);

    // Assert
    expect(code).toBe(print(source));
  });
});

describe("the rewrite's part of jest's cache key", () => {
  const SOURCE = "import { alpha } from '../room/index.js';\n";

  it('changes when the index changes', () => {
    // Prepare
    const { files, barrels } = barrelsOver(ROOM);
    const before = barrels.fingerprint(SOURCE, IMPORTER);

    // Act
    files.set('/repo/core/room/index.ts', "export { alpha } from './gamma.js';\n");

    // Assert
    expect(barrels.fingerprint(SOURCE, IMPORTER)).not.toBe(before);
  });

  it('changes when a module the index exports as a whole changes', () => {
    // Prepare
    const { files, barrels } = barrelsOver({
      ...ROOM,
      '/repo/core/room/index.ts': "export * from './alpha.js';\nexport * from './gamma.js';\n",
    });
    const before = barrels.fingerprint(SOURCE, IMPORTER);

    // Act
    files.set('/repo/core/room/gamma.ts', 'export const alpha = 0;\n');

    // Assert
    expect(barrels.fingerprint(SOURCE, IMPORTER)).not.toBe(before);
  });

  it('stays when a module the index names one by one changes', () => {
    // Prepare
    const { files, barrels } = barrelsOver(ROOM);
    const before = barrels.fingerprint(SOURCE, IMPORTER);

    // Act
    files.set('/repo/core/room/alpha.ts', 'export const alpha = 10;\nexport const beta = 20;\n');

    // Assert
    expect(barrels.fingerprint(SOURCE, IMPORTER)).toBe(before);
  });

  it('stays the same for a file that imports no index', () => {
    // Prepare
    const { files, barrels } = barrelsOver(ROOM);
    const source = "import { alpha } from '../room/alpha.js';\n";
    const before = barrels.fingerprint(source, IMPORTER);

    // Act
    files.set('/repo/core/room/index.ts', "export { alpha } from './gamma.js';\n");

    // Assert
    expect(barrels.fingerprint(source, IMPORTER)).toBe(before);
  });
});
