/**
 * Processors and versions from files and the command line: configs in either layout migrated on
 * the way in, version diffs as RFC 6902 and readable lines.
 */
export { createProcessor, diffVersions, findVersion, getProcessor, listProcessors, listVersions, publishProcessor, updateProcessor } from './manage.js';
export type { ConfigChange, ProcessorDetails, PublishedVersion, VersionDiff } from './manage.js';
export { inApiLayout, inHubLayout, readProcessorConfig } from './config.js';
export type { ProcessorConfigFile } from './config.js';
export { diffConfigs, shortJson } from './diff.js';
export type { ConfigDiff } from './diff.js';
