/** Which commit and branch a report is about: from GitHub Actions' variables, else from git; null when neither knows. */
import { execFile } from 'node:child_process';

export interface Revision {
  commit: string | null;
  branch: string | null;
}

function git(args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 5000, windowsHide: true }, (error, stdout) => resolve(error ? null : stdout.trim() || null));
  });
}

/**
 * $GITHUB_SHA and $GITHUB_HEAD_REF (a pull request's branch) or $GITHUB_REF_NAME when set;
 * otherwise `git rev-parse HEAD` and `git rev-parse --abbrev-ref HEAD` in `cwd`. Outside a
 * repository, without git, or on a detached HEAD the missing part is null: never an error.
 */
export async function detectRevision(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<Revision> {
  const ghBranch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || null;
  const commit = env.GITHUB_SHA || (await git(['rev-parse', 'HEAD'], cwd));
  let branch = ghBranch;
  if (!branch && !env.GITHUB_SHA) {
    const b = await git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd);
    branch = b === 'HEAD' ? null : b;
  }
  return { commit: commit && /^[0-9a-f]{7,64}$/i.test(commit) ? commit.toLowerCase() : null, branch };
}
