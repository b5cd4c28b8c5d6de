import { posix } from 'node:path';

/**
 * Which entries of a user's archive (a packaged `model.tar.gz`, or a `.tar.gz` of inference code)
 * may be repacked: only those that stay inside the folder they are extracted to. SageMaker extracts
 * the archive into `/opt/ml/model` of the container; an entry that leaves it would write, or point,
 * anywhere on the packaging machine now and on the container later.
 */

/** What the check needs of a tar entry (`tar`'s ReadEntry has these). */
export interface ArchiveEntryHeader {
  readonly type: string;
  readonly path: string;
  /** The target of a symbolic or hard link. */
  readonly linkpath?: string | undefined;
}

/** Files, folders and links: what a model folder is made of. */
const PACKAGED_TYPES: ReadonlySet<string> = new Set([
  'File',
  'OldFile',
  'ContiguousFile',
  'Directory',
  'SymbolicLink',
  'Link',
]);

/** Why the entry may not be repacked, or `undefined` when it is safe. */
export function unsafeEntryReason(entry: ArchiveEntryHeader): string | undefined {
  if (!PACKAGED_TYPES.has(entry.type)) {
    return `a ${entry.type} entry; only files, folders and links are packaged`;
  }
  if (isAbsolute(entry.path)) return 'an absolute path';
  if (entry.path.split(/[/\\]/).includes('..')) return 'a ".." path segment';
  if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
    const target = entry.linkpath ?? '';
    if (isAbsolute(target)) return `a link to the absolute path ${JSON.stringify(target)}`;
    // A symbolic link resolves from its own folder; a hard link names a path from the archive root.
    const resolved = posix.normalize(
      entry.type === 'SymbolicLink' ? posix.join(posix.dirname(entry.path), target) : target,
    );
    if (resolved === '..' || resolved.startsWith('../')) {
      return `a link to ${JSON.stringify(target)}, outside the archive`;
    }
  }
  return undefined;
}

/** POSIX absolute paths, and Windows drive or UNC paths (tar strips both unless told otherwise). */
function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path);
}
