/**
 * The few lines an agent config runs as `node -e <bootstrap> <start> [args…]` to reach the committed launcher
 * (`.k0maru/bin/<launcher>`) from wherever the client started it. Claude Code started in a subfolder finds
 * `.mcp.json` by walking up but expands `${CLAUDE_PROJECT_DIR:-.}` with the variable unset, so `<start>` may be a
 * subfolder (or `/` for Cursor): the bootstrap walks up from `<start>` to the folder holding `.k0maru/bin/`, then
 * from `$CLAUDE_PROJECT_DIR`, and calls the launcher's `main(args)`. No `git rev-parse --show-toplevel` fallback:
 * the top of the worktree is always the start folder or one of its parents, which the walk visits anyway (and a
 * git call here could not go through src/core/git/run.ts).
 *
 * The text is passed as one argument in JSON configs and inside double quotes in hook commands, which sh, bash,
 * cmd.exe and PowerShell all run: so it contains none of `"` `$` `` ` `` `\` `%` `!` (checked by a unit test).
 */
export function bootstrapSource(launcherFile: string, missingExitCode: number): string {
  return [
    `const f=require('fs'),p=require('path'),n='${launcherFile}',a=process.argv.slice(1);`,
    `const up=s=>{for(let d=p.resolve(s);;d=p.dirname(d)){const l=p.join(d,'.k0maru','bin',n);if(f.existsSync(l))return l;if(p.dirname(d)===d)return}};`,
    `const s=a[0]??'.',e=process.env.CLAUDE_PROJECT_DIR,l=up(s)??(e?up(e):undefined);`,
    `if(l)require(l).main(a.slice(1));else{console.error('k0maru: no .k0maru/bin/'+n+' in '+p.resolve(s)+' or a folder above it (run k0maru init --install in the project)');process.exitCode=${missingExitCode}}`,
  ].join('');
}

/** Characters the bootstrap must not contain (special inside double quotes in sh, cmd.exe or PowerShell). */
export const SHELL_UNSAFE = /["$`\\%!]/;
