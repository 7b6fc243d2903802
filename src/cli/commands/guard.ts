import { guardCheck } from '../../core/guard/check';
import { explainRules, renderExplain } from '../../core/guard/explain';
import { guardResultJson, renderGuardReport } from '../../core/guard/report';
import { K0Error } from '../../core/errors';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const guardCommand: Command = {
  name: 'guard',
  summary: 'Check changes against the Living ADR rules (exit 0 clean, 1 violations, 2 usage error)',
  usage: 'guard [--staged | --branch BASE | --diff-file FILE|- | FILE...] [--strict] [--project NAME] [--json]\nguard --explain-rules [ADR] [--json]   (every rule the guard reads, explicit and inferred)',
  options: {
    staged: { type: 'boolean' },
    branch: { type: 'string' },
    'diff-file': { type: 'string' },
    strict: { type: 'boolean' },
    project: { type: 'string' },
    'explain-rules': { type: 'boolean' },
  },
  allowPositionals: true,
  async run({ values, positionals, io, vault, json }) {
    if (values['explain-rules']) {
      if (values.staged || values.branch || values['diff-file'] !== undefined || values.strict || values.project) {
        throw new K0Error('INVALID_ARGUMENT', '--explain-rules takes only an optional ADR (id, file name or path) and --json');
      }
      if (positionals.length > 1) throw new K0Error('INVALID_ARGUMENT', '--explain-rules takes at most one ADR');
      const r = await explainRules({ cwd: io.cwd, env: io.env, vault, adr: positionals[0] });
      if (json) writeJson(io.stdout, r);
      else writeLine(io.stdout, renderExplain(r));
      return EXIT.OK;
    }
    const sources = [values.staged, values.branch, values['diff-file'], positionals.length ? 1 : undefined].filter((v) => v !== undefined && v !== false);
    if (sources.length > 1) throw new K0Error('INVALID_ARGUMENT', 'choose one of --staged, --branch, --diff-file or a file list');
    let diff: string | undefined;
    const diffFile = values['diff-file'] as string | undefined;
    if (diffFile !== undefined) {
      try {
        diff = readFileSync(diffFile === '-' ? 0 : resolve(io.cwd, diffFile), 'utf8');
      } catch (err) {
        throw new K0Error('INVALID_ARGUMENT', `cannot read diff file ${diffFile}: ${(err as Error).message}`);
      }
    }
    const result = await guardCheck({
      cwd: io.cwd,
      env: io.env,
      vault,
      diff,
      staged: !!values.staged,
      branch: values.branch as string | undefined,
      files: positionals.length ? positionals : undefined,
      strict: !!values.strict,
      project: values.project as string | undefined,
    });
    if (json) writeJson(io.stdout, guardResultJson(result));
    else writeLine(io.stdout, renderGuardReport(result));
    return result.ok ? EXIT.OK : EXIT.FINDINGS;
  },
};
