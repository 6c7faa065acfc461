/**
 * JSON lines through Powertools Logger, with the request id, SaaS id and operation of the request being
 * served (the pipeline adds them to the log scope). Callers log identifiers only; as a second line of
 * defence every field whose name says it holds a password, token, secret or code is redacted here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { logLevelFromEnv } from './config.js';

export const SERVICE_NAME = 'tenant-identity';

const POWERTOOLS_LEVELS = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', silent: 'SILENT' } as const;
type LevelName = keyof typeof POWERTOOLS_LEVELS;

/** LOG_LEVEL: debug, info, warn, error or silent; anything else means info. */
function powertoolsLevel(level: string) {
  return POWERTOOLS_LEVELS[level.toLowerCase() as LevelName] ?? POWERTOOLS_LEVELS.info;
}

export const logger = new Logger({ serviceName: SERVICE_NAME, logLevel: powertoolsLevel(logLevelFromEnv()) });

/**
 * The logger's level as a number, kept here: a line below it is dropped before its fields are copied and
 * redacted. Powertools reads the environment on every call to decide (its invocation store and trace id),
 * and the fields cost more again: together about a quarter of a millisecond of CPU per sign-in, for debug
 * lines nobody prints (docs/proof.md). Read again at each invocation (observability.ts) and when set here.
 */
let threshold = logger.level;

/** Reads the logger's level again: once per invocation, so what Powertools decides per invocation holds. */
export function refreshLogLevel(): void {
  threshold = logger.level;
}

/** Tests turn logging on in a process whose environment said `silent`. */
export function setLogLevel(level: string): void {
  logger.setLogLevel(powertoolsLevel(level));
  refreshLogLevel();
}

export const REDACTED = '[redacted]';

/** Names compared without case, `_` or `-`: `access_token`, `AccessToken` and `access-token` are one name. */
const SENSITIVE_NAMES = new Set(['srpa', 'srpb', 'session', 'salt', 'otp', 'authorization', 'cookie', 'setcookie']);
const SENSITIVE_PARTS = ['password', 'secret', 'token', 'verifier', 'signature', 'privatekey', 'credential', 'claim', 'sealed'];
/** `code`, `mfa_code`, `confirmationCode` are codes; these names only sound like one. */
const NOT_CODES = new Set(['statuscode', 'httpstatuscode', 'errorcode', 'countrycode']);

export function isSensitiveName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[-_]/g, '');
  if (normalized.endsWith('code')) return !NOT_CODES.has(normalized);
  return SENSITIVE_NAMES.has(normalized) || SENSITIVE_PARTS.some((part) => normalized.includes(part));
}

/** A copy of `value` with sensitive fields replaced, however deep (errors are left to the formatter). */
export function redact(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Error || value instanceof Date) return value;
  if (depth > 8) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = isSensitiveName(key) ? REDACTED : redact(field, depth + 1);
  return copy;
}

/**
 * Fields every line of one invocation carries. Scoped per invocation (not global), so concurrent requests
 * of the local server never borrow each other's ids.
 */
const scope = new AsyncLocalStorage<Record<string, unknown>>();

export function inLogScope<T>(fields: Record<string, unknown>, run: () => T): T {
  return scope.run({ ...fields }, run);
}

export function addToLogScope(fields: Record<string, unknown>): void {
  const current = scope.getStore();
  if (current) Object.assign(current, fields);
}

function fieldsOf(fields: Record<string, unknown>): Record<string, unknown> {
  return redact({ ...scope.getStore(), ...fields }) as Record<string, unknown>;
}

function errorOf(error: unknown): unknown {
  return error instanceof Error ? error : String(error);
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => {
    if (LogLevelThreshold.DEBUG >= threshold) logger.debug(message, fieldsOf(fields));
  },
  info: (message: string, fields: Record<string, unknown> = {}) => {
    if (LogLevelThreshold.INFO >= threshold) logger.info(message, fieldsOf(fields));
  },
  warn: (message: string, fields: Record<string, unknown> = {}) => {
    if (LogLevelThreshold.WARN >= threshold) logger.warn(message, fieldsOf(fields));
  },
  error: (message: string, error: unknown, fields: Record<string, unknown> = {}) =>
    logger.error(message, { ...fieldsOf(fields), error: errorOf(error) }),
};
