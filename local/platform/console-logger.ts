import { redactText } from '../../core/contracts/index.js';
import type { Logger } from '../../core/ports/index.js';

export type LogLevel = 'info' | 'warn' | 'error';

const RANK: Readonly<Record<LogLevel, number>> = { info: 0, warn: 1, error: 2 };

export interface ConsoleLoggerOptions {
  readonly write: (line: string) => void;
  /** Messages below this level are dropped. @default 'info' */
  readonly level?: LogLevel;
}

/**
 * The `Logger` port for local mode: one readable line per message, details as compact JSON, through
 * the same redaction as the Lambdas' lines (no task token or credential reaches the terminal).
 */
export function createConsoleLogger(options: ConsoleLoggerOptions): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const log =
    (level: LogLevel) =>
    (message: string, details?: Record<string, unknown>): void => {
      if (RANK[level] < threshold) return;
      const suffix =
        details === undefined || Object.keys(details).length === 0 ? '' : ` ${JSON.stringify(details)}`;
      options.write(redactText(`${level}: ${message}${suffix}\n`));
    };
  return { info: log('info'), warn: log('warn'), error: log('error') };
}
