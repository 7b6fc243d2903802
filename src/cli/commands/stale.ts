import { withProject } from '../../core/project';
import { listStale, stalenessStatus } from '../../core/stale';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const staleCommand: Command = {
  name: 'stale',
  summary: 'List notes whose anchored code changed or disappeared since they were written or verified, with reasons',
  usage: 'stale [--check] [--json]   (--check: exit 1 when a note is stale, for CI)',
  options: { check: { type: 'boolean' } },
  async run({ values, vault, io, json }) {
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project, scan) => {
      const status = stalenessStatus(project.index);
      const notes = listStale(project.index);
      const checked = scan.staleness?.checked ?? 0;
      const warnings = scan.staleness?.warnings ?? [];
      if (json) {
        writeJson(io.stdout, {
          status,
          checked,
          stale: notes.map((n) => ({ path: n.path, title: n.title, reason: n.info.reason, since: n.info.since, base: n.info.base, anchors: n.info.anchors })),
          warnings,
        });
      } else {
        if (!status.enabled) writeLine(io.stderr, `note: staleness is off: ${status.reason}`);
        for (const w of warnings) writeLine(io.stderr, `note: ${w}`);
        for (const n of notes) {
          writeLine(io.stdout, `${n.path} — ${n.title} (since ${n.info.since})`);
          for (const a of n.info.anchors) writeLine(io.stdout, `  ${a.reason}`);
        }
        if (status.enabled) {
          const unknown = status.unknown ? `; ${status.unknown} with a base not in the local history (unknown, never flagged)` : '';
          writeLine(notes.length ? io.stdout : io.stderr, `${notes.length} of ${checked} anchored notes stale at ${status.head.slice(0, 7)}${unknown}`);
        }
      }
      return values.check && notes.length ? EXIT.FINDINGS : EXIT.OK;
    });
  },
};
