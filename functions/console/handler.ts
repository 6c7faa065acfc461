/** The operator console's function: its page, sign-in and the signed calls it forwards (web/console). */
export { handler } from '../../web/console/console-function.js';
