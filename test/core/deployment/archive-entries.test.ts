import { describe, expect, it } from '@jest/globals';
import { type ArchiveEntryHeader, unsafeEntryReason } from '../../../core/deployment/archive-entries.js';

describe('unsafeEntryReason', () => {
  it.each<[string, ArchiveEntryHeader]>([
    ['a file at the root', { type: 'File', path: 'model.pt' }],
    ['a file under ./', { type: 'File', path: './model.pt' }],
    ['a folder', { type: 'Directory', path: 'code/' }],
    ['a link to a sibling', { type: 'SymbolicLink', path: 'tokenizer/current', linkpath: 'vocab.txt' }],
    ['a link up to the root', { type: 'SymbolicLink', path: 'a/b/link', linkpath: '../../model.pt' }],
    ['a hard link inside', { type: 'Link', path: 'copy.pt', linkpath: 'weights/model.pt' }],
  ])('accepts %s', (_case, entry) => {
    // Act / Assert
    expect(unsafeEntryReason(entry)).toBeUndefined();
  });

  it.each<[string, ArchiveEntryHeader, string]>([
    ['a ".." segment', { type: 'File', path: '../evil' }, 'a ".." path segment'],
    ['a ".." inside the path', { type: 'File', path: 'code/../../evil' }, 'a ".." path segment'],
    ['an absolute path', { type: 'File', path: '/etc/cron.d/evil' }, 'an absolute path'],
    ['a Windows drive path', { type: 'File', path: 'C:\\evil' }, 'an absolute path'],
    [
      'a link to an absolute path',
      { type: 'SymbolicLink', path: 'config.json', linkpath: '/etc/passwd' },
      'a link to the absolute path "/etc/passwd"',
    ],
    [
      'a link climbing out',
      { type: 'SymbolicLink', path: 'a/link', linkpath: '../../outside' },
      'a link to "../../outside", outside the archive',
    ],
    [
      'a hard link climbing out',
      { type: 'Link', path: 'copy', linkpath: '../outside' },
      'a link to "../outside", outside the archive',
    ],
    [
      'a device',
      { type: 'CharacterDevice', path: 'dev' },
      'a CharacterDevice entry; only files, folders and links are packaged',
    ],
  ])('refuses %s', (_case, entry, reason) => {
    // Act / Assert
    expect(unsafeEntryReason(entry)).toBe(reason);
  });
});
