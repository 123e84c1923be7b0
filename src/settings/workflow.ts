/**
 * The GitHub Actions workflow `evalkit init` writes: the one place its text lives. It evaluates
 * the processor config file of the checked-out tree (`eval run --config`: a pull request's own
 * config, never the processor's draft on the service, which every pull request shares), runs the
 * evalkit composite action (repo-root action.yml: inputs `config-file` and `dataset`, which runs
 * `evalkit report` into the config file's outDir) and keeps that folder as an artifact, also
 * when a gate fails.
 */

/**
 * The composite action the workflow uses: action.yml of the evalkit installed in the project's
 * node_modules, so the action always matches the CLI's version (docs/ci.md).
 */
export const EVALKIT_ACTION = './node_modules/evalkit';

export const WORKFLOW_FILE = '.github/workflows/evalkit.yml';

export interface WorkflowInput {
  /** The config file, relative to the repository root. */
  configFile: string;
  dataset: string;
  /** The folder the reports are written to, relative to the repository root. */
  reportsDir: string;
  /** The processor config file evaluated, relative to the repository root. */
  processorConfig: string;
}

const yamlString = (s: string): string => JSON.stringify(s);

export function renderWorkflow(w: WorkflowInput): string {
  return `# Written by \`evalkit init\`. Evaluates the processor config ${yamlString(w.processorConfig)} of the checked-out
# tree (a pull request's own version of it) on the dataset ${yamlString(w.dataset)} of ${w.configFile}, on every
# pull request and on main, and keeps the reports. Set the repository secret EVALKIT_API_TOKEN
# (Settings > Secrets and variables > Actions), and the variable EVALKIT_BASE_URL unless
# ${w.configFile} has a baseUrl; the rest comes from ${w.configFile}.
name: evalkit

on:
  pull_request:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read
  pull-requests: write # the action's one sticky comment on the pull request

jobs:
  evaluate:
    runs-on: ubuntu-latest
    env:
      EVALKIT_API_TOKEN: \${{ secrets.EVALKIT_API_TOKEN }}
      # Empty when the variable is not set: then the config file's baseUrl applies.
      EVALKIT_BASE_URL: \${{ vars.EVALKIT_BASE_URL }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: evaluate the processor config of this checkout on the evaluation set
        env:
          PROCESSOR_CONFIG: ${yamlString(w.processorConfig)}
        run: npx evalkit eval run --config-file ${yamlString(w.configFile)} --dataset ${yamlString(w.dataset)} --config "$PROCESSOR_CONFIG"
      - name: evalkit report
        uses: ${EVALKIT_ACTION}
        with:
          config-file: ${yamlString(w.configFile)}
          dataset: ${yamlString(w.dataset)}
      - name: keep the reports
        if: \${{ !cancelled() }}
        uses: actions/upload-artifact@v4
        with:
          name: evalkit-reports-${w.dataset}
          path: ${yamlString(w.reportsDir)}
          if-no-files-found: warn
`;
}
