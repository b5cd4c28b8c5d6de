import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ASYNC_INFERENCE_STEPS } from '../../handlers/contracts/async-state.js';
import { OPTIMIZATION_STEPS } from '../../handlers/contracts/optimization-state.js';
import { REPO_ROOT as ROOT } from '../support/module-graph.js';

/**
 * Every Lambda has its handler module and its test file, named as it is, so one name leads from
 * the state to the entry, the core function and its test. (Which module may import which is held
 * by test/architecture.test.ts.)
 */

/** The Lambdas: the registry's steps and every entry of `lambdas/` made with `defineStep`. */
function lambdaNames(): string[] {
  const entries = readdirSync(join(ROOT, 'lambdas'))
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /\bdefineStep\(/.test(readFileSync(join(ROOT, 'lambdas', name), 'utf8')))
    .map((name) => name.replace(/\.ts$/, ''));
  return [
    ...new Set([...Object.values(OPTIMIZATION_STEPS), ...Object.values(ASYNC_INFERENCE_STEPS), ...entries]),
  ].sort();
}

/** `handlers/<name>.ts` or `handlers/async/<name>.ts`: where a Lambda's core function lives. */
function handlerModuleOf(name: string): string | undefined {
  return [`handlers/${name}.ts`, `handlers/async/${name}.ts`].find((path) => existsSync(join(ROOT, path)));
}

describe('each Lambda across the layers', () => {
  it('has its entry, its handler module and its test file, all named as the Lambda', () => {
    // Arrange
    const names = lambdaNames();

    // Act
    const missing = names.flatMap((name) => {
      const handler = handlerModuleOf(name);
      const wanted = [
        `lambdas/${name}.ts`,
        ...(handler === undefined
          ? []
          : [handler.replace(/^handlers\//, 'test/handlers/').replace(/\.ts$/, '.test.ts')]),
      ];
      return [
        ...(handler === undefined ? [`handlers/${name}.ts or handlers/async/${name}.ts`] : []),
        ...wanted.filter((path) => !existsSync(join(ROOT, path))),
      ];
    });

    // Assert
    expect(missing).toEqual([]);
  });
});
