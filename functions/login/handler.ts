/** The login screen's function: the hosted screen, the OpenID provider and the theme (web/login). */
export { handler } from '../../web/login/login-function.js';
