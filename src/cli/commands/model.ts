import { K0Error } from '../../core/errors';
import { defaultModelsRoot, installModel, listInstalledModels } from '../../core/embed/install';
import { readModelFolder } from '../../core/embed/modelConfig';
import { bundledModelDir, resolveModelDir } from '../../core/embed/modelLocation';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import { progressBar } from '../progress';

export const modelCommand: Command = {
  name: 'model',
  summary: 'Embedding models: install one from a URL or folder (sha256-checked, atomic), list, show the active one',
  usage: [
    'model install <url-or-folder> [--sha256 HEX] [--models-dir DIR]',
    'model list [--models-dir DIR]',
    'model info [--model ID|PATH] [--models-dir DIR]',
  ].join('\n'),
  options: { sha256: { type: 'string' }, 'models-dir': { type: 'string' }, model: { type: 'string' } },
  allowPositionals: true,
  async run({ values, positionals, io, json }) {
    const [sub, ...args] = positionals;
    const modelsRoot = (values['models-dir'] as string | undefined) ?? defaultModelsRoot(io.env);
    if (sub === 'install') {
      if (args.length !== 1) throw new K0Error('INVALID_ARGUMENT', 'usage: k0maru model install <url-or-folder>');
      const bar = progressBar(io.stderr, 'downloading');
      let current = '';
      const res = await installModel(args[0], {
        modelsRoot,
        sha256: values.sha256 as string | undefined,
        onProgress: (p) => {
          if (p.file !== current) (current = p.file), bar.end();
          if (p.total) bar.update(p.received, p.total);
        },
      });
      bar.end();
      if (json) writeJson(io.stdout, { id: res.id, dir: res.dir, bytes: res.bytes, replaced: res.replaced, dimension: res.config.dimension });
      else writeLine(io.stdout, `installed ${res.id} (${res.config.dimension}-d, ${(res.bytes / 1e6).toFixed(1)} MB) in ${res.dir}${res.replaced ? ' (replaced the previous copy)' : ''}\nuse it with --model ${res.id} or K0MARU_MODEL=${res.id}; vectors of another model are re-embedded, never mixed`);
      return EXIT.OK;
    }
    if (sub === 'list') {
      const models = [{ id: readModelFolder(bundledModelDir()).config.id, dir: bundledModelDir(), bundled: true }, ...listInstalledModels(modelsRoot).map((m) => ({ id: m.id, dir: m.dir, bundled: false }))];
      if (json) writeJson(io.stdout, models);
      else for (const m of models) writeLine(io.stdout, `${m.id}${m.bundled ? ' (bundled)' : ''}  ${m.dir}`);
      return EXIT.OK;
    }
    if (sub === 'info') {
      const dir = resolveModelDir(values.model as string | undefined, modelsRoot, io.env);
      const { config } = readModelFolder(dir);
      if (json) writeJson(io.stdout, { dir, ...config });
      else writeLine(io.stdout, `${config.id}: ${config.dimension}-d, ${config.maxTokens}-token window, pooling ${config.pooling}${config.normalize ? ', normalised' : ''}\n${dir}`);
      return EXIT.OK;
    }
    throw new K0Error('INVALID_ARGUMENT', `unknown model sub-command '${sub ?? ''}': install, list or info`);
  },
};
