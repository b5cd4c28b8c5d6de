// jest's module runtime (jest.config.js `runtime`) with two caches that outlive a suite, for the
// CommonJS files of node_modules, which do not change while jest runs. jest isolates each suite in
// a module registry of its own and keeps both only for one suite, so every suite paid them again:
// - the named exports of a file a suite imports as an ES module: jest-runtime finds them by lexing
//   the file's source and that of every file it re-exports (cjs-module-lexer), for the @aws-sdk
//   clients megabytes per suite; the names are strings;
// - V8's code cache of each compiled file (https://nodejs.org/api/vm.html#new-vmscriptcode-options,
//   `cachedData`): a suite still evaluates every module itself, in its own registry, but V8 skips
//   parsing and compiling what it has compiled before. Node ignores a cache V8 rejects.
// jest-runner loads this file with require(), which reads an ES module on Node >= 20.19.
import vm from 'node:vm';
import RuntimeModule from 'jest-runtime';

const JestRuntime = RuntimeModule.default;

const isPackageFile = (path) => path.includes('/node_modules/');

/** Module path -> the names its source exports (jest-runtime's `getExportsOfCjs`). */
const PACKAGE_EXPORTS = new Map();

/** Module path -> V8's code cache of its wrapped source, made when it was first compiled. */
const CODE_CACHE = new Map();

export default class PackageCachingRuntime extends JestRuntime {
  getExportsOfCjs(modulePath) {
    if (!isPackageFile(modulePath)) return super.getExportsOfCjs(modulePath);
    let names = PACKAGE_EXPORTS.get(modulePath);
    if (names === undefined) {
      names = super.getExportsOfCjs(modulePath);
      PACKAGE_EXPORTS.set(modulePath, names);
    }
    return names;
  }

  /** jest-runtime's own (29.7), with V8's code cache of a package file. */
  createScriptFromCode(scriptSource, filename) {
    if (!isPackageFile(filename) || this._resolver.isCoreModule(filename)) {
      return super.createScriptFromCode(scriptSource, filename);
    }
    const cachedData = CODE_CACHE.get(filename);
    const script = new vm.Script(this.wrapCodeInModuleWrapper(scriptSource), {
      columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
      displayErrors: true,
      filename,
      ...(cachedData === undefined ? {} : { cachedData }),
      importModuleDynamically: async (specifier) => {
        const context = this._environment.getVmContext?.();
        if (!context)
          throw new Error(`${filename} imported ${specifier} after its test environment was torn down`);
        return this.linkAndEvaluateModule(await this.resolveModule(specifier, filename, context));
      },
    });
    if (cachedData === undefined || script.cachedDataRejected)
      CODE_CACHE.set(filename, script.createCachedData());
    return script;
  }
}
