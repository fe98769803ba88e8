/**
 * Before every test file: the gateways the suite starts (in process, or as a
 * subprocess that inherits the environment) hold each JSON answer to the
 * schema its route declares (src/http/answer-check.ts), so any test that
 * reaches a route also checks its answer against the API document.
 */
process.env.SVC_CHECK_ANSWERS ??= "1";
