/**
 * JSON lines with the request id, SaaS id and operation. Never pass a password, token, secret or code:
 * nothing here redacts, so callers log identifiers only.
 */
import { logLevelFromEnv } from './config.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** LOG_LEVEL: debug, info, warn, error or silent. */
function thresholdOf(level: string): number {
  return ORDER[level as Level] ?? (level === 'silent' ? Infinity : ORDER.info);
}

const threshold = thresholdOf(logLevelFromEnv());

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

function errorFields(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { error: { name: error.name, message: error.message, stack: error.stack } } : { error: String(error) };
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, error: unknown, fields: Record<string, unknown> = {}) =>
    write('error', message, { ...fields, ...errorFields(error) }),
};
