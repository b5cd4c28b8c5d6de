// jest's module runtime (jest.config.js `runtime`) with one cache that outlives a suite: the named
// exports of each CommonJS file of node_modules that a suite imports as an ES module. jest-runtime
// finds them by lexing the file's source, and that of every file it re-exports (cjs-module-lexer),
// in every suite again: its cache belongs to one suite's runtime, and for the @aws-sdk clients that
// is megabytes of source per suite. A package's files do not change while jest runs and the names
// are strings; each suite still requires and evaluates the module itself, in its own registry.
// jest-runner loads this file with require(), which reads an ES module on Node >= 20.19.
import RuntimeModule from 'jest-runtime';

const JestRuntime = RuntimeModule.default;

/** Module path -> the names its source exports (jest-runtime's `getExportsOfCjs`). */
const PACKAGE_EXPORTS = new Map();

export default class PackageExportsCachingRuntime extends JestRuntime {
  getExportsOfCjs(modulePath) {
    if (!modulePath.includes('/node_modules/')) return super.getExportsOfCjs(modulePath);
    let names = PACKAGE_EXPORTS.get(modulePath);
    if (names === undefined) {
      names = super.getExportsOfCjs(modulePath);
      PACKAGE_EXPORTS.set(modulePath, names);
    }
    return names;
  }
}
