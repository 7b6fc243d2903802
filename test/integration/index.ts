// Entry of the in-host test suite: VS Code's extension host loads this bundle (dist/test/integration/index.js)
// as `extensionTestsPath` and awaits run(). Mocha 11 is bundled in (mocha 12 is ESM-only and cannot be).
import Mocha from 'mocha';
import { format } from 'node:util';
import { registerActivationTests } from './suite/activation';
import { registerIndexTests } from './suite/indexing';
import { registerPackagedTests } from './suite/packaged';
import { registerUntrustedTests } from './suite/untrusted';
import { registerNoVaultTests } from './suite/noVault';
import { registerGuardTests } from './suite/guardDiagnostics';
import { registerEditorCommandTests } from './suite/editorCommands';
import { registerConsoleTests, registerConsoleUiTests } from './suite/console';
import { registerInferredRuleTests } from './suite/inferredRules';
import { registerFirstHourTests } from './suite/firstHour';
import { registerStaleTests } from './suite/stale';
import { registerEmbeddingProgressTests } from './suite/embeddingProgress';
import { registerScopeMatchesNothingTests } from './suite/scopeMatchesNothing';

export function run(): Promise<void> {
  // The workbench forwards console arguments joined by commas, unformatted: format them here so the runner's
  // log reads like a terminal's.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args));
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  // Bundled suites cannot be added by file name: expose describe/it on the global object the way mocha does
  // before it requires a file, then let each suite register itself.
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  // The runner picks the suite through code-server's environment, which the extension host inherits.
  const suite = process.env.K0_INTEGRATION_SUITE ?? 'development';
  if (suite === 'packaged') registerPackagedTests();
  else if (suite === 'untrusted') registerUntrustedTests();
  else if (suite === 'no-vault') registerNoVaultTests();
  // next-host: the same suite on code-server 4.117 (VS Code 1.117, Node 22), where the MCP provider API is final.
  else if (suite === 'development' || suite === 'next-host') {
    registerActivationTests();
    registerIndexTests();
    registerGuardTests();
    registerEditorCommandTests();
    registerConsoleTests();
    registerInferredRuleTests();
    registerFirstHourTests();
  } else if (suite === 'console-ui') registerConsoleUiTests();
  else if (suite === 'stale-progress') {
    // The fill first: its progress is watched from before the first Recall, which is what starts it.
    registerEmbeddingProgressTests();
    registerScopeMatchesNothingTests();
    registerStaleTests();
  }
  else throw new Error(`unknown K0_INTEGRATION_SUITE: ${suite}`);
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} in-host test(s) failed`)) : resolve()));
  });
}
