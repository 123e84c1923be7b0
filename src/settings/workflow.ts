/**
 * The GitHub Actions workflow `evalkit init` writes: the one place its text lives. It runs the
 * evalkit composite action (repo-root action.yml: inputs `config-file` and `dataset`, which runs
 * `evalkit report`) and keeps the reports folder as an artifact, also when a gate fails.
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
}

const yamlString = (s: string): string => JSON.stringify(s);

export function renderWorkflow(w: WorkflowInput): string {
  return `# Written by \`evalkit init\`. Evaluates the dataset ${yamlString(w.dataset)} of ${w.configFile} on every
# pull request and on main, and keeps the reports. Set the repository secret EVALKIT_API_TOKEN
# (Settings > Secrets and variables > Actions); the base URL and the rest come from ${w.configFile}.
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
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: evaluate (the processor version of the config on its evaluation set)
        run: npx evalkit eval run --config-file ${yamlString(w.configFile)} --dataset ${yamlString(w.dataset)}
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
