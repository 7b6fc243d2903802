import { runGitSync } from '../git/run';
import { installHooks, uninstallHooks, type InstallReport } from '../guard/hookInstaller';
import { installAgents, uninstallAgents, type AgentInstallOptions, type AgentInstallReport } from './agents';
import { currentCliCommand } from './launcher';

export interface IntegrationReport {
  agents: AgentInstallReport;
  hooks?: InstallReport;
  notes: string[];
}

function isGitRepo(root: string): boolean {
  try {
    runGitSync(root, ['rev-parse', '--git-dir']);
    return true;
  } catch {
    return false;
  }
}

/** `k0maru init --install`: MCP configs for every agent, the git pre-commit guard and Claude Code's Stop hook. */
export function installIntegrations(projectRoot: string, opts: AgentInstallOptions = {}): IntegrationReport {
  const notes: string[] = [];
  const command = opts.command ?? currentCliCommand();
  const agents = installAgents(projectRoot, { ...opts, command });
  const git = isGitRepo(projectRoot);
  if (!git) notes.push('not a git repository: the pre-commit guard was not installed (run again after `git init`)');
  const hooks = installHooks(projectRoot, { command, git });
  return { agents, hooks, notes };
}

export function uninstallIntegrations(projectRoot: string): { agents: ReturnType<typeof uninstallAgents>; hooks: ReturnType<typeof uninstallHooks> } {
  return { agents: uninstallAgents(projectRoot), hooks: uninstallHooks(projectRoot) };
}
