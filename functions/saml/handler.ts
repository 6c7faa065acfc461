/** The SAML service provider's function (web/login/saml-function.ts), apart so the XML signature stack loads only for SAML. */
export { handler } from '../../web/login/saml-function.js';
