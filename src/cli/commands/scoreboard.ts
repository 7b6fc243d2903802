import { withProject } from '../../core/project';
import { readScoreboard } from '../../core/scoreboard/scoreboard';
import { formatUsd } from '../../shared/format';
import { EXIT, writeJson, writeLine, type Command } from '../command';

const n = (v: number) => Math.round(v).toLocaleString('en-US');

export const scoreboardCommand: Command = {
  name: 'scoreboard',
  summary: 'Tokens saved by log offloads and context GC, and what they are worth at each price tier',
  usage: 'scoreboard [--json]',
  options: {},
  async run({ vault, io, json }) {
    return withProject({ vault, cwd: io.cwd, env: io.env }, (project) => {
      const s = readScoreboard(project);
      if (json) {
        writeJson(io.stdout, s);
        return EXIT.OK;
      }
      writeLine(io.stdout, `Tokens saved: ${n(s.tokensSaved)}${s.first ? ` (${s.first.slice(0, 10)} → ${s.last!.slice(0, 10)})` : ''}`);
      writeLine(io.stdout, `  offloads: ${n(s.offload.tokensSaved)} in ${s.offload.events} offload(s) (${n(s.offload.tokensBefore)} → ${n(s.offload.tokensAfter)})`);
      writeLine(io.stdout, `  context GC: ${n(s.gc.tokensSaved)} in ${s.gc.events} session(s) (${n(s.gc.tokensBefore)} → ${n(s.gc.tokensAfter)})`);
      writeLine(io.stdout, `Worth, as input tokens (${s.pricesSource === 'vault' ? s.pricesFile : `default prices; edit ${s.pricesFile}`}):`);
      s.prices.forEach((p, i) => writeLine(io.stdout, `  ${p.name.padEnd(12)} ${formatUsd(s.usdSaved[i]).padStart(10)}  at $${p.usdPerMillionInput}/M (${p.models})`));
      if (s.pricesWarning) writeLine(io.stderr, `warning: ${s.pricesWarning}`);
      if (s.skipped) writeLine(io.stderr, `warning: ${s.skipped} ledger line(s) were not entries and were skipped`);
      return EXIT.OK;
    });
  },
};
