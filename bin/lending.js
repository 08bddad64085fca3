#!/usr/bin/env node
// Runs the JavaScript that `npm run build` (run by npm install) compiles from src/ into dist/.
let main;
try {
  main = await import('../dist/cli/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli/main.js')) throw err;
  process.stderr.write('error: lending is not built: run `npm run build` in its directory\n');
  process.exit(1);
}
process.exitCode = await main.runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTTY: Boolean(process.stderr.isTTY),
});
