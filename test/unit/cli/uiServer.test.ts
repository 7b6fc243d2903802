import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startConsoleServer, type ConsoleServerHandle } from '../../../src/cli/ui/server';
import { pathsForProject } from '../../../src/core/vault/paths';
import { tempVault, type TempVault } from '../../helpers/tempVault';
import { rawRequest } from './uiHelpers';

// The server through its in-process API: what it is bound to, and how it serves (or refuses) the bundle.

function connectTo(host: string, port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 2000 });
    s.once('connect', () => (s.destroy(), resolve('connected')));
    s.once('timeout', () => (s.destroy(), resolve('timeout')));
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('startConsoleServer', () => {
  let vault: TempVault;
  let assets: string;
  let server: ConsoleServerHandle;
  const logs: string[] = [];

  before(async () => {
    vault = tempVault({ 'a.md': '# A\n' });
    // A bundle folder of our own: the real one is tested through the CLI; here only what the server does with it.
    assets = mkdtempSync(join(tmpdir(), 'k0-assets-'));
    writeFileSync(join(assets, 'webview.js'), 'console.log("page");\n');
    server = await startConsoleServer({ paths: pathsForProject(vault.root), port: 0, version: 'test', log: (l, m) => logs.push(`${l}: ${m}`), assetsDir: assets });
  });

  after(async () => {
    await server?.close();
    vault?.cleanup();
    rmSync(assets, { recursive: true, force: true });
  });

  test('listens on 127.0.0.1 only (IPv4 loopback, never a wildcard address)', async () => {
    const a = server.address();
    assert.equal(a.address, '127.0.0.1');
    assert.equal(a.family, 'IPv4');
    assert.equal(a.port, server.port);
    assert.equal(server.url, `http://127.0.0.1:${server.port}/?token=${server.token}`);
    // And from outside loopback nothing answers: every other address of this machine refuses the connection.
    const others = Object.values(networkInterfaces()).flat().filter((i) => i && !i.internal && i.family === 'IPv4');
    for (const i of others) assert.equal(await connectTo(i!.address, server.port), 'ECONNREFUSED', `${i!.address}:${server.port} answered`);
    assert.equal(await connectTo('127.0.0.1', server.port), 'connected');
  });

  test('serves webview.js from the bundle folder; a missing webview.css is a clear 500; a missing map is a 404', async () => {
    const js = await rawRequest(server.port, { path: `/webview.js?token=${server.token}` });
    assert.equal(js.status, 200);
    assert.equal(js.body, 'console.log("page");\n');
    assert.equal(js.headers['x-content-type-options'], 'nosniff');
    const css = await rawRequest(server.port, { path: `/webview.css?token=${server.token}` });
    assert.equal(css.status, 500);
    assert.match(css.body, /the console bundle is missing: .*webview\.css does not exist\. Build it with `node esbuild\.mjs`/);
    const map = await rawRequest(server.port, { path: `/webview.js.map?token=${server.token}` });
    assert.equal(map.status, 404);
    writeFileSync(join(assets, 'webview.js.map'), '{"version":3}');
    assert.equal((await rawRequest(server.port, { path: `/webview.js.map?token=${server.token}` })).status, 200);
  });

  test('refusals are logged with the reason, the token never', async () => {
    await rawRequest(server.port, { path: `/?token=${server.token}`, headers: { Host: 'rebind.example' } });
    assert.ok(logs.some((l) => /refused GET \/: Host "rebind\.example" is not this server/.test(l)), logs.join('\n'));
    assert.ok(!logs.some((l) => l.includes(server.token)));
  });

  test('close() frees the port at once and is idempotent', async () => {
    const port = server.port;
    await Promise.all([server.close(), server.close()]);
    assert.equal(await connectTo('127.0.0.1', port), 'ECONNREFUSED');
    const again = await startConsoleServer({ paths: pathsForProject(vault.root), port, version: 'test', log: () => {}, assetsDir: assets });
    assert.equal(again.port, port);
    await again.close();
  });
});
