/**
 * Counting what an operation asks of the store, by command name, through the store client's interceptors. The API
 * log writer's writes (records and sign-in counts, written a moment after the calls: local/line-sink.ts) are counted
 * apart (`logWrites`): they are the writer's, not the operation's.
 */
import { dynamo } from '../../shared/wiring.js';
import { apiLogKeys } from '../../shared/store/keys.js';

export interface StoreRequestCounter {
  /** The store requests `work` makes, by command name, the API log writer's left out. */
  requestsOf(work: () => Promise<unknown>): Promise<string[]>;
  /** The API log writer's writes seen since the counter was installed. */
  readonly logWrites: number;
}

/** Installs the counting interceptor on this process's store client (once per test file, after the harness starts). */
export function countStoreRequests(): StoreRequestCounter {
  let counting: string[] | undefined;
  let logWrites = 0;
  dynamo().intercept((command, next) => {
    if (apiLogKeys.isRecordWrite(command.operation, command.input)) logWrites++;
    else counting?.push(command.operation);
    return next();
  });
  return {
    async requestsOf(work) {
      counting = [];
      try {
        await work();
        return counting;
      } finally {
        counting = undefined;
      }
    },
    get logWrites() {
      return logWrites;
    },
  };
}
