/**
 * What npm start (bin/local.ts) needs of the operator console (web/console): its address to print, and the demo
 * operator it offers in one click to requests from this computer.
 */
export { CONSOLE_ENTRY, offerDemoOperator } from '../web/console/console-function.js';
