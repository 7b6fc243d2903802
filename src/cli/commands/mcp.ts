import type { Command } from '../command';

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Run the MCP server over stdio (spawned by the agent client; --sidecar for omp)',
  usage: 'mcp [--sidecar] [--vault PATH]',
  options: { sidecar: { type: 'boolean' } },
  async run({ values, vault }) {
    const { runMcpServer } = await import('../../mcp/main');
    await runMcpServer([...(values.sidecar ? ['--sidecar'] : []), ...(vault ? ['--vault', vault] : []), ...(values.debug ? ['--debug'] : [])]);
    // The server runs until the client closes stdin; the process exits from there.
    return new Promise<number>(() => {});
  },
};
