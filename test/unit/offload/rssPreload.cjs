// Preloaded into a child CLI run (node -r): writes the process's peak resident set size (KiB) to the file named
// by K0_RSS_OUT when it exits, so a test can bound the memory of a real `k0maru` run.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  if (process.env.K0_RSS_OUT) writeFileSync(process.env.K0_RSS_OUT, String(process.resourceUsage().maxRSS));
});
