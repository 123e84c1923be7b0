/**
 * SDK 1.17 methods that do not yet work against the sandbox, each with one line saying why.
 * The suite (sdk.contract.test.ts) fails when a method outside this list fails, and when a method
 * in it passes ("remove X from KNOWN_GAPS"): the list only shrinks. A method that needs the
 * output of a gap (an id) is a gap too, with the reason "needs <method>".
 *
 * Made on 2026-11-27 against the sandbox of main bf6c6ba, which does not accept 2026-02-09 yet
 * (every request gets 400 "unsupported API version"; error bodies are `{success: false, error}`,
 * not ApiError). Each line: "needs X" when the happy path cannot be sent, then what the spec says
 * is still to do (spec 2026-02-09, section 5.1 and 6).
 */
export const KNOWN_GAPS: Readonly<Record<string, string>> = {
};
