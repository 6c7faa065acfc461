import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string | Uint8Array) => createHash('sha256').update(value).digest();

/**
 * Equality that takes the same time wherever two values differ, and whatever their lengths: both sides are
 * hashed first, so neither a prefix nor a length can be learnt by timing answers.
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
