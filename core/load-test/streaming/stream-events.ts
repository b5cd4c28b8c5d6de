/**
 * What a stream parser reads out of a generative model's streamed response, in the order the
 * container sent it. One vocabulary for every container format (OpenAI-compatible, TGI, LMI), so
 * the timing recorder and the engine never see a format.
 */

/**
 * One generated token (or, for the OpenAI-compatible stream, one chunk of text: a chunk usually
 * holds one token, several with speculative decoding, which is why the server's usage figure is
 * preferred when it reports one). `special` marks tokens the server flags as special (TGI's
 * `special`, LMI's `special_token`), such as an end-of-sequence token: generated, counted, but not
 * text a client shows.
 */
export interface TokenEvent {
  readonly kind: 'token';
  readonly text: string;
  readonly special: boolean;
}

/** The server's own token counts (OpenAI `usage`, TGI and LMI `details.generated_tokens`). */
export interface UsageEvent {
  readonly kind: 'usage';
  readonly outputTokens: number;
  readonly inputTokens?: number;
}

/** The stream's terminal event was read: the generation ended as the server intended. */
export interface DoneEvent {
  readonly kind: 'done';
  readonly finishReason?: string;
}

/**
 * Why a stream did not end well, as read from its bytes (transport failures are the transport's
 * outcome, not the parser's):
 * - `model-error`: the server said so inside the stream (an `error` object, LMI's
 *   `finish_reason: "error"`), after it had already answered 200;
 * - `malformed`: an event that is not the format's JSON (wrong format configured, or a broken
 *   container);
 * - `truncated`: the body ended cleanly but without the format's terminal event.
 */
export type StreamFailureReason = 'model-error' | 'malformed' | 'truncated';

export interface StreamFailure {
  readonly reason: StreamFailureReason;
  readonly message: string;
}

export interface FailureEvent {
  readonly kind: 'failure';
  readonly failure: StreamFailure;
}

export type StreamEvent = TokenEvent | UsageEvent | DoneEvent | FailureEvent;
