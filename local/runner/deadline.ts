export interface DeadlineOptions {
  /** Whole-attempt limit (the state's TimeoutSeconds, scaled). */
  readonly timeoutMs?: number;
  /** Longest silence between heartbeats (the state's HeartbeatSeconds, scaled). */
  readonly heartbeatMs?: number;
  readonly createError: () => Error;
}

export interface Deadline {
  /** Rejects with `createError()` when a limit passes; never settles otherwise. */
  readonly expired: Promise<never>;
  /** Restarts the heartbeat limit. */
  readonly heartbeat: () => void;
  readonly clear: () => void;
}

/** The time limits of one Task attempt, as Step Functions applies TimeoutSeconds and HeartbeatSeconds. */
export function startDeadline({ timeoutMs, heartbeatMs, createError }: DeadlineOptions): Deadline {
  let expire: (error: Error) => void = () => undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    expire = reject;
  });
  const onExpiry = (): void => {
    clear();
    expire(createError());
  };
  const timeout = timeoutMs === undefined ? undefined : setTimeout(onExpiry, timeoutMs);
  let heartbeatTimer = heartbeatMs === undefined ? undefined : setTimeout(onExpiry, heartbeatMs);
  function clear(): void {
    clearTimeout(timeout);
    clearTimeout(heartbeatTimer);
    heartbeatTimer = undefined;
  }
  return {
    expired,
    heartbeat: () => {
      if (heartbeatTimer === undefined) return;
      clearTimeout(heartbeatTimer);
      heartbeatTimer = setTimeout(onExpiry, heartbeatMs);
    },
    clear,
  };
}

/** Rejects with `createError()` once `signal` aborts; `dispose` detaches the listener. */
export function rejectOnAbort(
  signal: AbortSignal,
  createError: () => Error,
): { promise: Promise<never>; dispose: () => void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(createError());
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return {
    promise,
    dispose: () => {
      signal.removeEventListener('abort', onAbort);
    },
  };
}
