/** The end of `npm test`: the engines jest-global-setup.js started stop. */
export default async function globalTeardown() {
  await Promise.all((globalThis.testEngines ?? []).map((engine) => engine.stop()));
}
