import { GetExecutionHistoryCommand, type HistoryEvent, type SFNClient } from '@aws-sdk/client-sfn';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { HistoryEventLine, RunEventReader, RunRef } from '../../core/run-status/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';
import type { SfnExecutionReader } from './sfn-execution-reader.js';

/**
 * `RunEventReader` over Step Functions GetExecutionHistory (Smithy model
 * `com.amazonaws.sfn#GetExecutionHistory`: `maxResults` up to 1,000, `reverseOrder` "lists events
 * in descending order of their timeStamp", `includeExecutionData` "whether execution data (input or
 * output of a history event) is returned"; errors ExecutionDoesNotExist, InvalidArn, InvalidToken,
 * KmsAccessDeniedException, KmsInvalidStateException, KmsThrottlingException). One page, newest
 * first, without execution data: run inputs and state outputs never reach the API's caller.
 */

export interface SfnRunEventsOptions {
  readonly client: SFNClient;
  /** Names the run's execution ARN (run id = execution name). */
  readonly executions: Pick<SfnExecutionReader, 'executionArnOf'>;
}

export class SfnRunEvents implements RunEventReader {
  private readonly client: SFNClient;
  private readonly executions: Pick<SfnExecutionReader, 'executionArnOf'>;

  constructor(options: SfnRunEventsOptions) {
    this.client = options.client;
    this.executions = options.executions;
  }

  async newest(
    run: RunRef,
    limit: number,
  ): Promise<{ readonly events: readonly HistoryEventLine[]; readonly truncated: boolean } | undefined> {
    const executionArn = this.executions.executionArnOf(run);
    try {
      const { events, nextToken } = await this.client.send(
        new GetExecutionHistoryCommand({
          executionArn,
          maxResults: limit,
          reverseOrder: true,
          includeExecutionData: false,
        }),
      );
      return { events: (events ?? []).map(toLine), truncated: nextToken !== undefined };
    } catch (error) {
      if (errorName(error) === 'ExecutionDoesNotExist') return undefined;
      if (!isTransient(error)) throw error;
      throw new TransientServiceError(
        `Step Functions GetExecutionHistory failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
        { operation: 'GetExecutionHistory' },
      );
    }
  }
}

/**
 * A history event has one `…EventDetails` member, which depends on its type; the state's name sits
 * in `stateEnteredEventDetails`/`stateExitedEventDetails`, and every failure, time-out and abort
 * detail carries `error` and `cause`. Reading them generically covers every event type.
 */
function toLine(event: HistoryEvent): HistoryEventLine {
  const details = Object.entries(event)
    .filter(([key, value]) => key.endsWith('EventDetails') && typeof value === 'object' && value !== null)
    .map(([, value]) => value as Readonly<Record<string, unknown>>);
  const state = event.stateEnteredEventDetails?.name ?? event.stateExitedEventDetails?.name;
  const error = details.map((detail) => detail.error).find((value) => typeof value === 'string');
  const cause = details.map((detail) => detail.cause).find((value) => typeof value === 'string');
  return {
    id: event.id ?? 0,
    timestamp: event.timestamp ?? new Date(0),
    type: event.type ?? 'Unknown',
    ...(state === undefined ? {} : { state }),
    ...(typeof error === 'string' ? { error } : {}),
    ...(typeof cause === 'string' ? { cause } : {}),
  };
}
