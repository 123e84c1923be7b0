/**
 * evalkit as a library. Every command's core is exported here as a plain async or pure function.
 */
export { EvalkitError, InputError, UsageError, InternalError } from './util/errors.js';
export type { ExitCode, Location } from './util/errors.js';
