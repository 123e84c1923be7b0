/**
 * The API version evalkit speaks when none is set (--api-version, EVALKIT_API_VERSION, the config
 * file's apiVersion): the one place to change it. A module of its own, without imports, so that
 * commands that only need the version (migrate's default --to) do not load the HTTP client.
 * 2026-02-09 configs can be migrated to and checked already; the client and sandbox speak
 * 2025-04-21 until they learn 2026-02-09 (issue 32, part 2).
 */
export const DEFAULT_API_VERSION = '2025-04-21';
