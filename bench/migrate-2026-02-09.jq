# The peer of bench/migrate.bench.mjs --to 2026-02-09: bench/migrate.jq plus the second step
# (2025-04-21 -> 2026-02-09: `type` leaves the config, parser -> parseConfig), written as a user
# would: configs and splitter outputs from 2024-11-14 to 2026-02-09 by hand, for the places configs sit in (a bare
# config, an envelope's config or draftVersion.config, an item's expectedOutput, a run's output,
# arrays of these). Only the renames and moves: no checks, no validation, key order and formatting
# not kept. (A generic walk(...) version gives the same output on the bench files at twice the time.)
#   jq -f bench/migrate-2026-02-09.jq FILES... > all.json
def mv($from; $to): if has($from) then .[$to] = .[$from] | del(.[$from]) else . end;
def nest($from; $to): if has($from) then .advancedOptions[$to] = .[$from] | del(.[$from]) else . end;
def config:
  if has("customExtractionRules") or has("includeBoundingBoxCitations") then
    mv("customExtractionRules"; "extractionRules") | nest("includeBoundingBoxCitations"; "citationsEnabled")
  elif has("customClassificationRules") then
    mv("fields"; "classifications") | mv("customClassificationRules"; "classificationRules")
  elif has("customSplitterRules") or has("identifierRules") then
    mv("subDocumentClassifications"; "splitClassifications") | mv("customSplitterRules"; "splitRules")
    | nest("identifierRules"; "splitIdentifierRules") | del(.customReminders)
  else . end
  | del(.type) | mv("parser"; "parseConfig");
def output: mv("subDocumentClassifications"; "splits");
def doc:
  if has("config") then .config |= config
  elif has("draftVersion") then .draftVersion.config |= config
  elif has("expectedOutput") then .expectedOutput |= output
  else config end
  | if has("output") then .output |= output else . end;
if type == "array" then map(doc) else doc end
