import { formatLocation, type LogAnalysis, type LogError, type Runtime } from '../offload';
import type { ErrorFamily } from './families';

export const RUNTIME_LABEL: Record<Runtime, string> = {
  rust: 'Rust',
  python: 'Python',
  typescript: 'TypeScript',
  javascript: 'JavaScript (Node.js)',
  go: 'Go',
  'c-cpp': 'C/C++',
  java: 'Java (JVM)',
  dotnet: '.NET',
  shell: 'Shell',
  unknown: 'unknown runtime',
};

export interface PlaybookParts {
  title: string;
  family: ErrorFamily;
  runtime: Runtime;
  primary?: LogError;
  analysis: LogAnalysis;
  /** Up to a dozen raw lines around the primary error (ANSI stripped). */
  excerpt: string[];
  source: string;
  contextHint?: string;
}

function fence(lines: string[]): string {
  const body = lines.join('\n');
  const ticks = body.includes('```') ? '````' : '```';
  return `${ticks}text\n${body}\n${ticks}`;
}

/** The playbook body shared by the vault note and the SKILL.md exports. */
export function renderPlaybook(p: PlaybookParts): string {
  const e = p.primary;
  const out: string[] = [];
  out.push('## Symptom signature', '');
  out.push(`- Runtime: ${RUNTIME_LABEL[p.runtime]}${e ? ` (${e.phase} phase)` : ''}`);
  if (e) {
    out.push(`- Error: \`${e.code}\` — ${e.message.replace(/`/g, "'")}`);
    if (e.chain && e.chain.length > 1) {
      const links = e.chain.map((l) => `\`${l.code}\`${l.location ? ` at \`${formatLocation(l.location)}\`` : ''}`);
      out.push(`- Exception chain (final exception first, then its causes): ${links.join(' ← ')}`);
    }
    if (e.test) out.push(`- Failing test: \`${e.test.replace(/`/g, "'")}\``);
    if (e.location) out.push(`- Root frame (first frame in user code): \`${formatLocation(e.location)}\``);
  }
  const others = Object.keys(p.analysis.codeCounts).filter((c) => c !== e?.code && c !== 'build-failed');
  if (others.length) out.push(`- Other errors in the same run: ${others.slice(0, 8).map((c) => `\`${c}\``).join(', ')}`);
  if (p.excerpt.length) out.push('', fence(p.excerpt));
  out.push('', '## Root cause', '', p.family.rootCause);
  if (p.contextHint) out.push('', `Context: ${p.contextHint.trim()}`);
  out.push('', '## Diagnostic steps', '', ...p.family.diagnosticSteps.map((s, i) => `${i + 1}. ${s}`));
  out.push('', '## Fix pattern', '', ...p.family.fixPattern.map((s) => `- ${s}`));
  out.push('', '## Verify', '', ...p.family.verify.map((s) => `- ${s}`));
  out.push('', '## Source', '', `- ${p.source}`, `- Error family: \`${p.family.id}\` (k0maru distill table)`);
  return out.join('\n') + '\n';
}

/** Skill descriptions say what the skill is and when to use it (the agent picks skills by description). */
export function skillDescription(p: PlaybookParts): string {
  const e = p.primary;
  const sig = e ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message.slice(0, 120)})` : ''}` : 'this failure';
  return `Troubleshooting playbook: ${p.family.title} (${RUNTIME_LABEL[p.runtime]}). Use when a build, test or run fails with ${sig}: root cause, diagnostic steps, fix pattern and how to verify.`;
}
