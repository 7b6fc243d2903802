/**
 * Terminal escape sequences are analysed away but never removed from the raw file: the agent may want the
 * colours back when it inspects a node, and the hash must cover the bytes exactly as produced.
 */
// CSI (colours, cursor), OSC (titles, hyperlinks, ended by BEL or ST) and two-byte escapes.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// Other C0 controls (except tab) and DEL make regexes and Mermaid labels misbehave; carriage returns from
// progress bars are handled by the caller (only the text after the last \r is what a terminal shows).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

export function stripAnsi(line: string): string {
  return line.replace(ANSI, '').replace(CONTROL, '');
}

/** What a terminal would display for a line that redraws itself with \r (progress bars). */
export function visibleLine(line: string): string {
  const stripped = line.endsWith('\r') ? line.slice(0, -1) : line;
  const cr = stripped.lastIndexOf('\r');
  return stripAnsi(cr >= 0 ? stripped.slice(cr + 1) : stripped);
}
