/**
 * The domain's clock, in Unix seconds. Time-dependent rules (plan reservations, code lifetimes) read it
 * here so tests can move time instead of sleeping. The signature check keeps real time: it guards the wire.
 */
let source: () => number = () => Date.now();

export function nowSeconds(): number {
  return Math.floor(source() / 1000);
}

export function nowMillis(): number {
  return source();
}

/** Tests only: make the clock return `ms` (or follow a function). */
export function setClockForTests(ms: number | (() => number)): void {
  source = typeof ms === 'number' ? () => ms : ms;
}

export function resetClockForTests(): void {
  source = () => Date.now();
}
