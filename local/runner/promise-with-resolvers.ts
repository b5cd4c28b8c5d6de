/**
 * `Promise.withResolvers` (ES2024, Node 22) for Node 20. aws-local-stepfunctions 3.0.0 calls it for
 * every Task state; without it a Task fails with "Promise.withResolvers is not a function".
 * Imported for its side effect, before the engine (see engine.ts).
 */
if (typeof Reflect.get(Promise, 'withResolvers') !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve: (value: T | PromiseLike<T>) => void = () => undefined;
      let reject: (reason?: unknown) => void = () => undefined;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
