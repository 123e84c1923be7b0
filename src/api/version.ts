/**
 * The API version evalkit speaks when none is set (--api-version, EVALKIT_API_VERSION, the config
 * file's apiVersion): the one place to change it. A module of its own, without imports, so that
 * commands that only need the version (migrate's default --to) do not load the HTTP client.
 * The client and the processors commands speak 2026-02-09 too (issue 33, part 2), when it is in
 * effect; the default is 2026-02-09 since the sandbox serves it; 2025-04-21 stays available by --api-version / EVALKIT_API_VERSION / the config file.
 */
export const DEFAULT_API_VERSION = '2026-02-09';

/** The first API version of the extractor/classifier/splitter routes, bare answers and ApiError bodies. */
export const API_2026_02_09 = '2026-02-09';

/** Whether a version (a release date; '' = none sent) speaks the 2026-02-09 wire forms. */
export function speaks2026(apiVersion: string): boolean {
  return apiVersion !== '' && apiVersion >= API_2026_02_09;
}
