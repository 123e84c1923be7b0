import os from 'node:os';
import path from 'node:path';

/** The folder of evalkit's per-user state: `$XDG_STATE_HOME/evalkit`, else `~/.local/state/evalkit`. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg && path.isAbsolute(xdg) ? path.join(xdg, 'evalkit') : path.join(os.homedir(), '.local', 'state', 'evalkit');
}
