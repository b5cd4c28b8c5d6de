import { AsyncLocalStorage } from 'node:async_hooks';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  formatViolation,
  isOperationSchema,
  validateCommand,
  type ValidatedCommand,
  type Violation,
} from '../request-validator.js';

/**
 * The log every fake writes to: each command a real adapter sent (client, command, input) and
 * each violation of the service's declaration the validator found in it.
 */
export interface RecordedCall {
  readonly client: string;
  readonly command: string;
  readonly input: unknown;
  /**
   * The function that sent it: the `STEP_NAME` of the Lambda whose core was running (`as`), or
   * undefined for a call a test made itself.
   */
  readonly caller?: string;
  /** The modules of `lambdas/adapters/` on the stack that sent it (`s3-object-store`). */
  readonly adapters: readonly string[];
}

/** How a fake answers one command: the output, or a thrown SDK error. */
export type CommandHandler = (command: string, input: Record<string, unknown>) => unknown;

/**
 * The function running now, and the recorder it runs for. Async context, not a field: the runner
 * runs a Map's iterations and an async notification concurrently, and each call belongs to the
 * step that awaited it. One storage for every recorder, not one each: Node keeps an enabled
 * AsyncLocalStorage until `disable()`, and runs each enabled one's hook for every promise the
 * process creates afterwards, also in the suites a jest worker runs later
 * (https://nodejs.org/docs/latest-v20.x/api/async_context.html#asynclocalstoragedisable).
 */
const runningFunction = new AsyncLocalStorage<{ readonly recorder: AwsRecorder; readonly caller: string }>();

export class AwsRecorder {
  readonly calls: RecordedCall[] = [];
  readonly violations: Violation[] = [];

  /** Runs `work` as function `caller`: every call sent while it runs is recorded as the caller's. */
  as<T>(caller: string, work: () => T): T {
    return runningFunction.run({ recorder: this, caller }, work);
  }

  /** The function running in this async context for this recorder, if any. */
  currentCaller(): string | undefined {
    const running = runningFunction.getStore();
    return running?.recorder === this ? running.caller : undefined;
  }

  /** The violations, one line each (operation.path: rule; given …; source), for assertions. */
  violationLines(): string[] {
    return this.violations.map(formatViolation);
  }

  /** The recorded inputs of one command, in order. */
  inputsOf(command: string): unknown[] {
    return this.calls.filter((call) => call.command === command).map((call) => call.input);
  }
}

/** A command as `send` receives it: an SDK command, or a lib-dynamodb one wrapping it. */
interface SentCommand {
  readonly constructor: { readonly name: string };
  readonly input: Record<string, unknown>;
  readonly schema?: unknown;
  readonly clientCommand?: { readonly schema?: unknown };
  readonly inputKeyNodes?: Readonly<Record<string, unknown>>;
}

/**
 * Installs a fake behind one client instance (aws-sdk-client-mock): every command is recorded and
 * validated; a request that violates the service's declaration is answered with the error the
 * service returns for it (`validationError`), anything else by `handle`.
 */
export function installFake(options: {
  /** An SDK v3 client instance (typed loosely: each client's middleware types differ). */
  readonly client: object;
  readonly clientName: string;
  readonly recorder: AwsRecorder;
  readonly validationError: (message: string) => Error;
  readonly handle: CommandHandler;
}): void {
  const mock = mockClient(options.client as Parameters<typeof mockClient>[0]);
  mock.send.callsFake((async (sent: unknown) => {
    const command = sent as SentCommand;
    const name = command.constructor.name;
    const violations = recordCall(
      options.recorder,
      options.clientName,
      name,
      command.input,
      validatedForm(command),
    );
    if (violations.length > 0) throw options.validationError(awsValidationMessage(violations));
    // A microtask, as a network call would: callers never see a synchronous answer.
    await Promise.resolve();
    return options.handle(name, command.input);
  }) as never);
}

/**
 * Records one request as sent by the function running now, validates it against the service's
 * declaration and records its violations; returns them.
 */
export function recordCall(
  recorder: AwsRecorder,
  clientName: string,
  command: string,
  input: unknown,
  validated: ValidatedCommand,
): Violation[] {
  const caller = recorder.currentCaller();
  recorder.calls.push({
    client: clientName,
    command,
    input,
    ...(caller === undefined ? {} : { caller }),
    adapters: adaptersOnStack(),
  });
  const violations = validateCommand(validated);
  recorder.violations.push(...violations);
  return violations;
}

const ADAPTER_FILE = /[/\\]lambdas[/\\]adapters[/\\]([\w-]+)\.ts$/;

/** A stack's frames as the names of their files, not as text: see adaptersOnStack. */
function frameFiles(_error: Error, frames: NodeJS.CallSite[]): string[] {
  return frames.map((frame) => frame.getFileName() ?? '');
}

/**
 * The adapter modules on the current call stack: a fake is called synchronously from the
 * adapter's `send` (or, for the data plane, from the middleware the adapter's handler runs first),
 * through any helper module the adapter shares with others. The frames are read as call sites
 * (V8's stack trace API, https://v8.dev/docs/stack-trace-api): only their files matter, and a
 * formatted stack costs every frame a source-map lookup under jest, for each request a load test
 * sends.
 */
function adaptersOnStack(): string[] {
  const { stackTraceLimit, prepareStackTrace } = Error;
  Error.stackTraceLimit = 60;
  Error.prepareStackTrace = frameFiles;
  const carrier: { stack?: unknown } = {};
  try {
    Error.captureStackTrace(carrier, adaptersOnStack);
    const files = Array.isArray(carrier.stack) ? (carrier.stack as unknown[]) : [];
    const adapters = files.map((file) =>
      typeof file === 'string' ? ADAPTER_FILE.exec(file)?.[1] : undefined,
    );
    return [...new Set(adapters.filter((adapter): adapter is string => adapter !== undefined))];
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    Error.prepareStackTrace = prepareStackTrace;
  }
}

/**
 * What the service receives. lib-dynamodb's commands marshal their plain values into DynamoDB's
 * AttributeValues (the members its `inputKeyNodes` name) before the wrapped command is sent: the
 * wrapped command's schema describes the marshalled form.
 */
function validatedForm(command: SentCommand): ValidatedCommand {
  const wrapped = command.clientCommand?.schema;
  if (command.inputKeyNodes !== undefined && isOperationSchema(wrapped)) {
    const input: Record<string, unknown> = { ...command.input };
    for (const member of Object.keys(command.inputKeyNodes)) {
      const value = input[member];
      // Each of these members is a map of attribute name → value: `marshall` of the map.
      if (value !== undefined) input[member] = marshall(value as Record<string, unknown>);
    }
    return { schema: wrapped, input };
  }
  if (!isOperationSchema(command.schema)) {
    throw new TypeError(
      `${command.constructor.name}: got no operation schema, expected an @aws-sdk v3 command`,
    );
  }
  return { schema: command.schema, input: command.input };
}

/** As AWS words it: `2 validation errors detected: Value 'x' at 'a.b' failed to satisfy constraint: …`. */
export function awsValidationMessage(violations: readonly Violation[]): string {
  const count = violations.length;
  const details = violations.map(
    (violation) =>
      `Value ${violation.given} at '${violation.path.slice(violation.operation.length + 1)}' failed to satisfy constraint: ${violation.rule}`,
  );
  return `${count} validation error${count === 1 ? '' : 's'} detected: ${details.join('; ')}`;
}

/** An SDK service error as the deserializer builds it: name, client fault, HTTP status. */
export function serviceError<E extends Error>(
  ServiceException: new (options: {
    name: string;
    message: string;
    $fault: 'client' | 'server';
    $metadata: { httpStatusCode: number };
  }) => E,
  name: string,
  message: string,
  status = 400,
): E {
  return new ServiceException({ name, message, $fault: 'client', $metadata: { httpStatusCode: status } });
}
