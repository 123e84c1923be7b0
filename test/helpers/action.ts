/**
 * Runs the repository's action.yml as GitHub's runner does its composite step: the inputs (with
 * their defaults) become the step's env, the script runs in `bash --noprofile --norc -eo
 * pipefail`, and $GITHUB_OUTPUT is read back.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './cli.js';

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; shell: string; run: string; env?: Record<string, string>; 'working-directory'?: string }> };
}

export const ACTION = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

/** `${{ inputs.x }}` and `${{ github.token }}`, the only expressions the action uses. */
function expand(value: string, inputs: Record<string, string>, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, expr: string) => {
    if (expr === 'github.token') return env.GITHUB_TOKEN ?? '';
    const m = /^inputs\.([\w-]+)$/.exec(expr);
    if (!m) throw new Error(`expression the test runner does not know: ${expr}`);
    if (!Object.hasOwn(ACTION.inputs, m[1])) throw new Error(`action.yml has no input ${m[1]}`);
    return Object.hasOwn(inputs, m[1]) ? inputs[m[1]] : expand(ACTION.inputs[m[1]].default ?? '', inputs, env);
  });
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The action's outputs, through its `outputs:` mapping. */
  outputs: Record<string, string>;
}

/** Reads $GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i]);
      out[heredoc[1]] = value.join('\n');
    } else if (lines[i].includes('=')) {
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
    }
  }
  return out;
}

export function runAction(inputs: Record<string, string>, opts: { cwd: string; env: NodeJS.ProcessEnv; outputFile: string }): Promise<ActionRun> {
  const [step] = ACTION.runs.steps;
  const env: NodeJS.ProcessEnv = { ...opts.env, GITHUB_OUTPUT: opts.outputFile };
  for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(v, inputs, opts.env);
  const cwd = path.resolve(opts.cwd, expand(step['working-directory'] ?? '.', inputs, opts.env));
  if (!existsSync(opts.outputFile)) writeFileSync(opts.outputFile, '');
  const before = readFileSync(opts.outputFile, 'utf8').length;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const stepOutputs = parseOutputFile(readFileSync(opts.outputFile, 'utf8').slice(before));
      const outputs: Record<string, string> = {};
      for (const [name, o] of Object.entries(ACTION.outputs)) {
        const m = /^\$\{\{\s*steps\.(\w+)\.outputs\.([\w-]+)\s*\}\}$/.exec(o.value);
        if (!m || m[1] !== step.id) throw new Error(`output ${name} does not map a step output: ${o.value}`);
        if (Object.hasOwn(stepOutputs, m[2])) outputs[name] = stepOutputs[m[2]];
      }
      resolve({ code, stdout, stderr, outputs });
    });
  });
}
