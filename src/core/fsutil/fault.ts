/**
 * Crash injection for the reliability suite: `K0MARU_FAULT=flush:create` makes the process SIGKILL itself the
 * moment it reaches the named point, so a test can prove that every crash point is recoverable (not rely on a
 * lucky timer). Several points may be listed, comma-separated (`flush:rename-0,recover:op-1`). The variable is
 * read on every call, so it only acts when someone sets it on purpose; nothing in the product sets it.
 * The points, in the order a superseding flush meets them (each kills just before that step):
 *   flush:lock (lock taken) · flush:journal · flush:journal-rename · flush:temp-<i> · flush:create ·
 *   flush:rename-<i> · flush:commit (all applied, journal still there) · flush:cleanup · flush:unlock;
 *   while undoing a failed commit: flush:rollback-journal-rename · flush:rollback;
 *   while recovering (any process that opens the vault): recover:start · recover:op-<i> · recover:undo-<i> · recover:done.
 */
export function faultPoint(area: string, step: string, env: NodeJS.ProcessEnv = process.env): void {
  const spec = env.K0MARU_FAULT;
  if (!spec) return;
  const here = `${area}:${step}`;
  if (!spec.split(',').some((s) => s.trim() === here)) return;
  process.stderr.write(`k0maru: K0MARU_FAULT reached ${here}; killing this process\n`);
  process.kill(process.pid, 'SIGKILL');
  // The signal is delivered before the process runs on; never return into the code under test meanwhile.
  const block = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(block, 0, 0, 1000);
}
