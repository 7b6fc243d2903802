import type { Command } from '../command';

/**
 * Every `k0maru` sub-command, loaded lazily: a hook or an MCP spawn pays only for the command it runs (the CLI
 * bundle is split per command). The summary here is what `--help` lists without loading anything; a unit test
 * checks it matches the command's own.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'init', summary: 'Create .k0maru/ (wiki, refs, git-ignored index) here, or bind an existing Obsidian vault with --vault', load: async () => (await import('./init')).initCommand },
  { name: 'scan', summary: 'Bring the index up to date with the Markdown (incremental: presence → mtime → xxh3); --embed also every vector', load: async () => (await import('./scan')).scanCommand },
  { name: 'recall', summary: 'Search the vault: compact wire lines by default, full Markdown with --full', load: async () => (await import('./recall')).recallCommand },
  { name: 'loadout', summary: 'Print the ≤ 300-token session loadout: vision, stack, active invariants, recent logs', load: async () => (await import('./loadout')).loadoutCommand },
  { name: 'flush', summary: 'Write a decision, log, card or skill note into the vault (conventions-aware, never overwrites, supersedes atomically)', load: async () => (await import('./flush')).flushCommand },
  { name: 'guard', summary: 'Check changes against the Living ADR rules (exit 0 clean, 1 violations, 2 usage error)', load: async () => (await import('./guard')).guardCommand },
  { name: 'hook', summary: 'Run a guard hook: pre-commit (staged changes) or stop (Claude Code Stop hook, reads its JSON on stdin)', load: async () => (await import('./hook')).hookCommand },
  { name: 'hooks', summary: 'Install or remove the pre-commit guard and the Claude Code Stop hook (idempotent, restores exactly)', load: async () => (await import('./hooks')).hooksCommand },
  { name: 'offload', summary: 'Fold a long terminal log into a Mermaid diagram + summary; the raw log goes to .k0maru/refs/', load: async () => (await import('./offload')).offloadCommand },
  { name: 'inspect', summary: 'Print an offloaded raw log (or a slice of it) by node id', load: async () => (await import('./inspect')).inspectCommand },
  { name: 'gc', summary: 'Compact a long agent session trajectory (4 tiers); big tool outputs become offload nodes', load: async () => (await import('./gc')).gcCommand },
  { name: 'distill', summary: 'Turn an error trace into a troubleshooting playbook (skill note; optional Hermes / omp SKILL.md export)', load: async () => (await import('./distill')).distillCommand },
  { name: 'model', summary: 'Embedding models: install one from a URL or folder (sha256-checked, atomic), list, show the active one', load: async () => (await import('./model')).modelCommand },
  { name: 'scoreboard', summary: 'Tokens saved by log offloads and context GC, and what they are worth at each price tier', load: async () => (await import('./scoreboard')).scoreboardCommand },
  { name: 'stale', summary: 'List notes whose anchored code changed or disappeared since they were written or verified, with reasons', load: async () => (await import('./stale')).staleCommand },
  { name: 'verify', summary: 'Mark notes as checked against the code: writes verified_at: <commit> (HEAD by default) into their frontmatter', load: async () => (await import('./verify')).verifyCommand },
  { name: 'mcp', summary: 'Run the MCP server over stdio (spawned by the agent client; --sidecar for omp)', load: async () => (await import('./mcp')).mcpCommand },
  { name: 'ui', summary: 'Open the console in a browser: search debugger, offload viewer, token scoreboard (127.0.0.1 only, per-run token)', load: async () => (await import('./ui')).uiCommand },
];
