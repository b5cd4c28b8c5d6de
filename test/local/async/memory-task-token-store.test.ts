import { describe, expect, it } from '@jest/globals';
import type { NewTaskTokenRecord, TaskTokenRecord } from '../../../core/async/ports.js';
import { MemoryTaskTokenStore } from '../../../local/async/memory-task-token-store.js';

function record(taskToken: string, overrides: Partial<NewTaskTokenRecord> = {}): NewTaskTokenRecord {
  return {
    inferenceId: 'mso-r1-item-0',
    taskToken,
    runId: 'r1',
    itemIndex: 0,
    inputLocation: 's3://local-artifacts/inputs/0000.json',
    endpointName: 'mso-r1-async',
    storedAtEpochMs: 1000,
    expiresAtEpochSeconds: 9999,
    ...overrides,
  };
}

async function tombstone(store: MemoryTaskTokenStore, token: string): Promise<TaskTokenRecord> {
  await store.putIfAbsent(record(token));
  await store.consumeToken('mso-r1-item-0', token, 2000);
  const stored = await store.get('mso-r1-item-0');
  if (stored === undefined) throw new Error('tombstone missing');
  return stored;
}

async function waiting(store: MemoryTaskTokenStore): Promise<NewTaskTokenRecord[]> {
  const records: NewTaskTokenRecord[] = [];
  for await (const entry of store.listWaiting()) records.push(entry);
  return records;
}

describe('MemoryTaskTokenStore', () => {
  it('stores a record when none has the id', async () => {
    const store = new MemoryTaskTokenStore();
    expect(await store.putIfAbsent(record('t1'))).toEqual({ status: 'stored' });
    expect(await store.get('mso-r1-item-0')).toEqual(record('t1'));
  });

  it('returns the existing record instead of overwriting it (conditional put)', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    expect(await store.putIfAbsent(record('t2'))).toEqual({ status: 'exists', existing: record('t1') });
    expect((await store.get('mso-r1-item-0'))?.taskToken).toBe('t1');
  });

  it('replaces a record that still holds the previous token', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    expect(await store.replace(record('t2'), record('t1'))).toEqual({ status: 'done' });
    expect((await store.get('mso-r1-item-0'))?.taskToken).toBe('t2');
  });

  it('fails to replace when another writer changed the token in between', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t-other'));
    expect(await store.replace(record('t2'), record('t1'))).toEqual({ status: 'changed' });
    expect((await store.get('mso-r1-item-0'))?.taskToken).toBe('t-other');
  });

  it('replaces a tombstone only while it is still a tombstone', async () => {
    const store = new MemoryTaskTokenStore();
    const dead = await tombstone(store, 't1');
    expect(await store.replace(record('t2'), dead)).toEqual({ status: 'done' });
    expect(await store.replace(record('t3'), dead)).toEqual({ status: 'changed' });
    expect((await store.get('mso-r1-item-0'))?.taskToken).toBe('t2');
  });

  it('fails to replace a record that no longer exists', async () => {
    const store = new MemoryTaskTokenStore();
    expect(await store.replace(record('t2'), record('t1'))).toEqual({ status: 'changed' });
    expect(await store.get('mso-r1-item-0')).toBeUndefined();
  });

  it('consumes the token: the record stays as a tombstone with the resume time', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    expect(await store.consumeToken('mso-r1-item-0', 't1', 2000)).toEqual({ status: 'done' });
    const stored = await store.get('mso-r1-item-0');
    expect(stored).not.toHaveProperty('taskToken');
    expect(stored?.resumedAtEpochMs).toBe(2000);
  });

  it('fails to consume a token the record does not hold, and to consume a tombstone twice', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    expect(await store.consumeToken('mso-r1-item-0', 't-other', 2000)).toEqual({ status: 'changed' });
    await store.consumeToken('mso-r1-item-0', 't1', 2000);
    expect(await store.consumeToken('mso-r1-item-0', 't1', 3000)).toEqual({ status: 'changed' });
    expect((await store.get('mso-r1-item-0'))?.resumedAtEpochMs).toBe(2000);
  });

  it('deletes only on condition of the token', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    expect(await store.deleteIfToken('mso-r1-item-0', 't-other')).toEqual({ status: 'changed' });
    expect(await store.deleteIfToken('mso-r1-item-0', 't1')).toEqual({ status: 'done' });
    expect(await store.get('mso-r1-item-0')).toBeUndefined();
  });

  it('lists the records that still hold a token, not the tombstones', async () => {
    const store = new MemoryTaskTokenStore();
    await tombstone(store, 't0');
    await store.putIfAbsent(record('t1', { inferenceId: 'mso-r1-item-1', itemIndex: 1 }));
    expect(await waiting(store)).toEqual([record('t1', { inferenceId: 'mso-r1-item-1', itemIndex: 1 })]);
  });

  it('hands out copies: changing what get returned does not change the store', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    const read = (await store.get('mso-r1-item-0')) as { taskToken?: string };
    read.taskToken = 'tampered';
    expect((await store.get('mso-r1-item-0'))?.taskToken).toBe('t1');
  });

  it('records the receipt on a record that still holds the token', async () => {
    const store = new MemoryTaskTokenStore();
    await store.putIfAbsent(record('t1'));
    const receipt = {
      inferenceId: 'mso-r1-item-0',
      outputLocation: 's3://o/a.out',
      failureLocation: 's3://f/a.out',
    };
    expect(await store.recordReceipt('mso-r1-item-0', 't1', receipt)).toEqual({ status: 'done' });
    expect(await store.get('mso-r1-item-0')).toEqual(
      record('t1', { outputLocation: 's3://o/a.out', failureLocation: 's3://f/a.out' }),
    );
  });

  it('refuses the receipt of another token, or of a tombstone (the task was resumed first)', async () => {
    const store = new MemoryTaskTokenStore();
    await tombstone(store, 't1');
    const receipt = { inferenceId: 'mso-r1-item-0', outputLocation: 's3://o/a.out' };
    expect(await store.recordReceipt('mso-r1-item-0', 't1', receipt)).toEqual({ status: 'changed' });
    expect((await store.get('mso-r1-item-0'))?.outputLocation).toBeUndefined();
  });
});
