import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ASYNC_INFERENCE_STEPS } from '../../core/contracts/async-state.js';
import { OPTIMIZATION_STEPS } from '../../core/contracts/optimization-state.js';
import { REPO_ROOT as ROOT } from '../support/module-graph.js';

/**
 * Every Lambda has its handler module and its test file, named as it is, so one name leads from
 * the state to the entry, the core function and its test. (Which module may import which is held
 * by test/architecture.test.ts.)
 */

/** The Lambdas that run outside the state machines: every entry of `lambdas/` made with `defineStep`. */
function operationNames(): string[] {
  return readdirSync(join(ROOT, 'lambdas'))
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /\bdefineStep\(/.test(readFileSync(join(ROOT, 'lambdas', name), 'utf8')))
    .map((name) => name.replace(/\.ts$/, ''));
}

/**
 * Each Lambda with the module of its core function: a registered step in its workflow's room,
 * any other Lambda in `core/operations/`.
 */
function handlerModules(): [name: string, module: string][] {
  const steps = new Map<string, string>([
    ...Object.values(OPTIMIZATION_STEPS).map((name): [string, string] => [
      name,
      `core/steps/optimization/${name}.ts`,
    ]),
    ...Object.values(ASYNC_INFERENCE_STEPS).map((name): [string, string] => [
      name,
      `core/steps/async/${name}.ts`,
    ]),
  ]);
  const operations = operationNames()
    .filter((name) => !steps.has(name))
    .map((name): [string, string] => [name, `core/operations/${name}.ts`]);
  return [...steps, ...operations].sort(([a], [b]) => a.localeCompare(b));
}

describe('each Lambda across the layers', () => {
  it('has its entry, its handler module and its test file, all named as the Lambda', () => {
    // Arrange
    const modules = handlerModules();

    // Act
    const missing = modules.flatMap(([name, module]) =>
      [
        `lambdas/${name}.ts`,
        module,
        module.replace(/^core\//, 'test/core/').replace(/\.ts$/, '.test.ts'),
      ].filter((path) => !existsSync(join(ROOT, path))),
    );

    // Assert
    expect(missing).toEqual([]);
  });
});
