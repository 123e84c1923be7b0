// Instructions a process executes, all its threads, counted by valgrind's callgrind (no profile
// kept). Unlike CPU time, which swings by a third on these shared machines, the count hardly
// moves with the load, so it shows changes of a few percent. For the benches' --instructions.
import { spawnSync } from 'node:child_process';

export function instructions(label, argv) {
  // --fair-sched=yes: the threads take turns in a fixed order; without it the count of a run with
  // V8's compiler threads moved by several percent with the machine's load.
  const r = spawnSync('valgrind', ['--tool=callgrind', '--fair-sched=yes', '--callgrind-out-file=/dev/null', ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw new Error(`--instructions needs valgrind (apt-get install valgrind): ${r.error.message}`);
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${label} under valgrind failed (exit ${r.status}): ${r.stderr.slice(-2000)}`);
  return Number(m[1]);
}
