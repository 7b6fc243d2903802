import { runMcpServer } from './main';

// The MCP server executable (bundled as dist/mcp.mjs): `node dist/mcp.mjs [--sidecar] [--vault PATH]`.
runMcpServer(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`[k0maru-mcp] fatal: ${(err as Error).message}\n`);
  process.exit(1);
});
