/**
 * Scheduled work (mail delivery, plan reservations) runs here once those issues land. The function and its
 * schedule exist now so the stack's shape does not change under operators later.
 */
import { log } from '../../shared/log.js';

export const handler = async (): Promise<void> => {
  log.debug('scheduled tick: nothing to do yet');
};
