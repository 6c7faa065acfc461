/**
 * The API log writer's delivery under `npm start` and in the tests, standing in for CloudWatch Logs and its
 * subscription filter: the functions' lines for the writer (shared/wiring.ts, sendShippedLinesTo) are collected in
 * this process and handed to the same writer code the writer function runs (writeShippedLines) every
 * FLUSH_MS, and once more on a clean stop, so none is lost. A batch the writer refuses is offered again with the
 * next ones, at most ATTEMPTS times in all, as Lambda retries a failed delivery before setting it aside.
 */
import { AsyncResource } from 'node:async_hooks';
import { log } from '../shared/log.js';
import { sendShippedLinesTo, writeShippedLines } from '../shared/wiring.js';

/** Far quicker than CloudWatch's seconds, so a page or test that reads a call just made rarely waits. */
export const FLUSH_MS = 150;
const ATTEMPTS = 3;

export class LocalLineSink {
  private pending: { line: string; attempts: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The flushes in flight, one after another, so a stop waits for all of them. */
  private chain: Promise<void> = Promise.resolve();
  private restore: (() => void) | undefined;
  /**
   * A flush runs in the context the sink was made in, never in that of the request whose line started the timer:
   * the writer's writes are nobody's request's (a test that notes each request's writes must not see them).
   */
  private readonly flushLater = AsyncResource.bind(() => void this.flush());

  constructor(private readonly write: (lines: readonly string[]) => Promise<unknown> = writeShippedLines) {}

  /** Takes the lines of this process from now until stop(). */
  start(): this {
    const replaced = sendShippedLinesTo((line) => this.tell(line));
    this.restore = () => sendShippedLinesTo(replaced);
    return this;
  }

  tell(line: string): void {
    this.pending.push({ line, attempts: 0 });
    // Unreferenced: a pending flush never keeps a finished process alive (stop() flushes what is left).
    this.timer ??= setTimeout(this.flushLater, FLUSH_MS).unref();
  }

  /** Writes every line told so far; resolves when they are written (or set aside after their last attempt). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.chain = this.chain.then(() => this.writeBatch(batch));
    return this.chain;
  }

  /** Writes what is left and gives the lines back to stdout. */
  async stop(): Promise<void> {
    this.restore?.();
    this.restore = undefined;
    await this.flush();
    // A batch that failed once is back in `pending`: one last try each.
    while (this.pending.length > 0) await this.flush();
  }

  private async writeBatch(batch: { line: string; attempts: number }[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.write(batch.map((entry) => entry.line));
    } catch (error) {
      const again = batch.filter((entry) => ++entry.attempts < ATTEMPTS);
      log.warn('local API log writer: a batch was not written', {
        lines: batch.length,
        again: again.length,
        error: error instanceof Error ? error.message : String(error),
      });
      if (again.length === 0) return;
      this.pending.unshift(...again);
      this.timer ??= setTimeout(this.flushLater, FLUSH_MS).unref();
    }
  }
}
