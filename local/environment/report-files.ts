import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { FileObjectStore } from '../platform/index.js';

/**
 * The file a local run's object is, as its report shows it (core/report/local-files.ts):
 * relative to the report's folder when inside it (`load-tests/c5-large/result.json`, which still
 * opens when the run's folder is moved), else absolute (a model reused from another run, the
 * user's own `file:///` model). Undefined for a URI the store has no file for.
 */
export function reportFileOf(store: FileObjectStore): (uri: string, reportUri: string) => string | undefined {
  return (uri, reportUri) => {
    let file: string;
    let folder: string;
    try {
      file = store.pathOf(uri);
      folder = dirname(store.pathOf(reportUri));
    } catch {
      return undefined;
    }
    const inside = relative(folder, file);
    return inside === '' || inside.split(sep)[0] === '..' || isAbsolute(inside) ? file : inside;
  };
}
