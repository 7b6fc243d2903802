import { strict as assert } from 'node:assert';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempVault, type TempVault } from '../../helpers/tempVault';
import { ensureUiBuilt, openEvents, rawRequest, rpc, startUi, type RunningUi } from './uiHelpers';
import { PROTOCOL_VERSION } from '../../../src/shared/protocolVersion';

// `k0maru ui` as users run it: the built CLI in its own process, real HTTP on loopback.

const NOTE = '---\ntitle: Payment locks\n---\n# Payment locks\n\nWe take a Redlock before booking a payment.\n';

function listenOn(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(() => new Promise((r) => s.close(() => r()))));
  });
}

describe('k0maru ui (built CLI, real process)', () => {
  let vault: TempVault;
  let ui: RunningUi;

  before(async () => {
    ensureUiBuilt();
    vault = tempVault({ '02_Architecture/payment-locks.md': NOTE });
    ui = await startUi(['--vault', vault.root, '--port', '0']);
    process.stderr.write(`# k0maru ui printed its URL ${ui.startupMs.toFixed(0)} ms after spawn\n`);
  });

  after(() => {
    ui?.child.kill('SIGKILL');
    vault?.cleanup();
  });

  test('prints one URL on 127.0.0.1 with a 32-character token', () => {
    assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
    assert.ok(ui.port > 0 && ui.port <= 65535);
    assert.equal(ui.stdout().trim().split('\n').length, 1, `stdout must be exactly the URL line, got ${JSON.stringify(ui.stdout())}`);
  });

  test('GET / with the token: the shell, its CSP as a header, the nonce on the script tag, security headers', async () => {
    const r = await rawRequest(ui.port, { path: `/?token=${ui.token}` });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    const csp = String(r.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, `no nonce in the CSP header: ${csp}`);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /connect-src 'self'/);
    assert.ok(r.body.includes(`<script nonce="${nonce}" src="/webview.js?token=${ui.token}"></script>`), r.body);
    assert.ok(r.body.includes(`data-token="${ui.token}"`));
    assert.ok(r.body.includes('data-host="browser"') && r.body.includes('data-layout="page"'));
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-frame-options'], 'DENY');
    const again = await rawRequest(ui.port, { path: `/?token=${ui.token}` });
    const nonce2 = /script-src 'nonce-([^']+)'/.exec(String(again.headers['content-security-policy']))?.[1];
    assert.notEqual(nonce2, nonce, 'the nonce must be new for every page');
  });

  test('no token, a wrong token, a token of another length: 403 on every route', async () => {
    const wrong = ui.token.slice(0, -1) + (ui.token.endsWith('A') ? 'B' : 'A');
    for (const path of ['/', '/webview.js', '/events', `/?token=${wrong}`, `/?token=${ui.token}x`, '/?token=', `/webview.js?token=${wrong}`]) {
      const r = await rawRequest(ui.port, { path });
      assert.equal(r.status, 403, path);
      assert.match(r.body, /forbidden/);
    }
    const post = await rawRequest(ui.port, { method: 'POST', path: '/rpc', headers: { 'Content-Type': 'application/json', 'X-K0maru-Token': wrong }, body: '{"kind":"ready","protocol":1}' });
    assert.equal(post.status, 403);
  });

  test('DNS rebinding: a foreign Host or Origin is refused even with the token; ours are accepted', async () => {
    const path = `/?token=${ui.token}`;
    assert.equal((await rawRequest(ui.port, { path, headers: { Host: `evil.example:${ui.port}` } })).status, 403);
    assert.equal((await rawRequest(ui.port, { path, headers: { Host: `127.0.0.1:${ui.port + 1}` } })).status, 403);
    assert.equal((await rawRequest(ui.port, { path, headers: { Origin: 'http://evil.example' } })).status, 403);
    assert.equal((await rawRequest(ui.port, { path, headers: { Origin: 'null' } })).status, 403);
    const cross = await rpc(ui.port, ui.token, { kind: 'ready', protocol: 1 }).then(() =>
      rawRequest(ui.port, { method: 'POST', path: '/rpc', headers: { Origin: `http://evil.example:${ui.port}`, 'Content-Type': 'application/json', 'X-K0maru-Token': ui.token }, body: '{"kind":"ready","protocol":1}' }),
    );
    assert.equal(cross.status, 403);
    assert.equal((await rawRequest(ui.port, { path, headers: { Host: `localhost:${ui.port}` } })).status, 200);
    assert.equal((await rawRequest(ui.port, { path, headers: { Origin: `http://127.0.0.1:${ui.port}` } })).status, 200);
    assert.equal((await rawRequest(ui.port, { path, headers: { Origin: `http://localhost:${ui.port}` } })).status, 200);
  });

  test('POST /rpc: ready → hello; a malformed request → an error response, and the server keeps answering', async () => {
    const hello = await rpc(ui.port, ui.token, { kind: 'ready', protocol: PROTOCOL_VERSION });
    assert.equal(hello.status, 200);
    assert.deepEqual(JSON.parse(hello.body), { kind: 'hello', protocol: PROTOCOL_VERSION, host: 'browser', version: JSON.parse(hello.body).version, vaultName: basename(vault.root), layout: 'page' });
    for (const bad of [
      { kind: 'request', id: -5, request: { method: 'scoreboard', params: {} } },
      { kind: 'request', id: 7, request: { method: 'rm -rf', params: {} } },
      { kind: 'request', id: 8, request: { method: 'getOffload', params: { nodeId: '../../etc/passwd' } } },
      { kind: 'nonsense' },
      42,
    ]) {
      const r = await rpc(ui.port, ui.token, bad);
      assert.equal(r.status, 200, JSON.stringify(bad));
      const msg = JSON.parse(r.body);
      assert.equal(msg.kind, 'response');
      assert.equal(msg.ok, false);
      assert.equal(msg.error.code, 'INVALID_ARGUMENT', r.body);
    }
    const again = await rpc(ui.port, ui.token, { kind: 'request', id: 9, request: { method: 'listOffloads', params: { limit: 10 } } });
    assert.equal(again.status, 200);
    const msg = JSON.parse(again.body);
    assert.equal(msg.ok, true, again.body);
    assert.equal(msg.id, 9);
    assert.deepEqual(msg.result.nodes, []);
  });

  test('POST /rpc: invalid JSON → 400, a non-JSON content type → 415, 2 MiB → 413, GET → 405', async () => {
    const invalid = await rpc(ui.port, ui.token, '{"kind": "ready",');
    assert.equal(invalid.status, 400);
    assert.match(JSON.parse(invalid.body).error, /invalid JSON/);
    const form = await rawRequest(ui.port, { method: 'POST', path: '/rpc', headers: { 'Content-Type': 'text/plain', 'X-K0maru-Token': ui.token }, body: '{"kind":"ready","protocol":1}' });
    assert.equal(form.status, 415);
    const big = await rpc(ui.port, ui.token, JSON.stringify({ kind: 'ready', protocol: 1, pad: 'x'.repeat(2 * 1024 * 1024) }));
    assert.equal(big.status, 413);
    const get = await rawRequest(ui.port, { path: `/rpc?token=${ui.token}` });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    // Still alive after all of that.
    assert.equal((await rpc(ui.port, ui.token, { kind: 'ready', protocol: 1 })).status, 200);
  });

  test('path traversal and unknown paths → 404, never a file', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/%2e%2e%2fpackage.json', '/webview.js/../../package.json', '/..%5cpackage.json', '/dist/webview.js', '/package.json', '/index.html']) {
      const r = await rawRequest(ui.port, { path: `${path}?token=${ui.token}` });
      assert.equal(r.status, 404, path);
      assert.ok(!r.body.includes('"name"'), `${path} leaked a file: ${r.body.slice(0, 80)}`);
    }
  });

  test('GET /webview.js and /webview.css: the built bundle, with its content type', async () => {
    const js = await rawRequest(ui.port, { path: `/webview.js?token=${ui.token}` });
    assert.equal(js.status, 200, js.body.slice(0, 200));
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    assert.ok(js.body.length > 1000);
    const css = await rawRequest(ui.port, { path: `/webview.css?token=${ui.token}` });
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });

  test('GET /events: ledgerChanged when the ledger is appended to (its folder created after start), vaultChanged when a note changes', async () => {
    const stream = await openEvents(ui.port, ui.token);
    assert.equal(stream.status, 200);
    try {
      // .k0maru/refs/ did not exist when the server started: the watcher must pick the folder up.
      const refs = join(vault.root, '.k0maru', 'refs');
      mkdirSync(refs, { recursive: true });
      appendFileSync(join(refs, 'ledger.jsonl'), JSON.stringify({ ts: new Date().toISOString(), node_id: 'node_0123abcd', task: 't', lines: 60, bytes: 900, tokens_before: 500, tokens_after: 50, reduction: 0.9, source: 'cli', deduplicated: false }) + '\n');
      assert.deepEqual(await stream.next((e) => (e as { event?: string }).event === 'ledgerChanged', 5000), { kind: 'event', event: 'ledgerChanged' });
      // Once attached, a second append is seen too.
      const before = stream.events.length;
      appendFileSync(join(refs, 'ledger.jsonl'), '{"ts":"x"}\n');
      await stream.next((e) => stream.events.indexOf(e) >= before && (e as { event?: string }).event === 'ledgerChanged', 5000);
      vault.write('01_AI_Logs/new-log.md', '# A new log\n');
      assert.deepEqual(await stream.next((e) => (e as { event?: string }).event === 'vaultChanged', 5000), { kind: 'event', event: 'vaultChanged' });
      assert.ok(stream.comments.includes('connected'));
    } finally {
      stream.close();
    }
  });

  test('a busy port is a clear error with exit code 4', async () => {
    const other = await startUi(['--vault', vault.root, '--port', String(ui.port)]).then(
      () => assert.fail('a second server started on a busy port'),
      (err: Error) => err,
    );
    assert.match(other.message, /exited with 4 before printing its URL/);
    assert.match(other.message, new RegExp(`port ${ui.port} on 127\\.0\\.0\\.1 is already in use`));
  });

  // Last: it stops the server.
  test('SIGINT: exit 0 within 1 s, and the port can be bound again at once', async () => {
    const events = await openEvents(ui.port, ui.token); // an open stream must not hold the shutdown
    const sent = performance.now();
    ui.child.kill('SIGINT');
    const { code, signal, at } = await ui.exited;
    events.close();
    assert.equal(signal, null);
    assert.equal(code, 0, ui.stderr());
    assert.ok(at - sent < 1000, `exited ${Math.round(at - sent)} ms after SIGINT`);
    const release = await listenOn(ui.port);
    await release();
  });
});

describe('k0maru ui: command-line errors', () => {
  before(() => ensureUiBuilt());

  test('--port out of range or not a number → usage error (exit 2); no vault → exit 3', async () => {
    const vault = tempVault();
    try {
      for (const port of ['65536', '-1', 'abc', '80.5']) {
        const err = await startUi(['--vault', vault.root, `--port=${port}`]).then(() => assert.fail(`--port ${port} was accepted`), (e: Error) => e);
        assert.match(err.message, /exited with 2 before printing its URL/, port);
        assert.match(err.message, /--port must be an integer from 0 to 65535/);
      }
      const none = await startUi(['--vault', join(vault.root, 'missing')]).then(() => assert.fail('started without a vault'), (e: Error) => e);
      assert.match(none.message, /exited with 3 before printing its URL/);
    } finally {
      vault.cleanup();
    }
  });
});
