/**
 * Counting what an operation asks of the store, by command name, through the store client's interceptors. The
 * API log's one write per signed call is counted apart (`logWrites`): it is the log's, not the operation's.
 */
import { dynamo } from '../../shared/wiring.js';
import { apiLogKeys } from '../../shared/store/keys.js';

export interface StoreRequestCounter {
  /** The store requests `work` makes, by command name, the API log's write left out. */
  requestsOf(work: () => Promise<unknown>): Promise<string[]>;
  /** The API log writes seen since the counter was installed. */
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
