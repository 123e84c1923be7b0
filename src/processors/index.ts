/**
 * Processors (2025-04-21) or extractors, classifiers and splitters (2026-02-09) and their versions
 * from files and the command line: configs in any layout migrated on the way in, version diffs as
 * RFC 6902 and readable lines.
 */
export { createProcessor, diffVersions, findVersion, getProcessor, listProcessors, listVersions, publishProcessor, updateProcessor } from './manage.js';
export type { ConfigChange, ConfigSource, ProcessorDetails, ProcessorJson, PublishedVersion, VersionDiff, VersionJson } from './manage.js';
export { checkedLayout, inApiLayout, inHubLayout, readProcessorConfig, shownConfig } from './config.js';
export type { ProcessorConfigFile } from './config.js';
export { diffConfigs, shortJson } from './diff.js';
export type { ConfigDiff } from './diff.js';
