import * as vscode from 'vscode';
import { format } from 'node:util';

/** Lines kept in memory for the API (tests, a bug report); the channel itself keeps everything. */
const RECENT_LINES = 500;

/**
 * The "K0maru" output channel, stamped with the time each line is written. A `{ log: true }` channel stamps a
 * line when the workbench's side of the channel exists, and every call made before that (all of activation) is
 * queued and stamped at once — the activation lines all carried the same time. A plain channel written with our
 * own timestamps keeps the real ones. Levels follow the editor's log level (Developer: Set Log Level).
 */
export class OutputLog implements vscode.LogOutputChannel {
  private readonly channel: vscode.OutputChannel;
  private readonly recentLines: string[] = [];
  readonly onDidChangeLogLevel: vscode.Event<vscode.LogLevel> = vscode.env.onDidChangeLogLevel;

  constructor(readonly name: string) {
    this.channel = vscode.window.createOutputChannel(name);
  }

  get logLevel(): vscode.LogLevel {
    return vscode.env.logLevel;
  }

  trace(message: string, ...args: unknown[]): void {
    this.write(vscode.LogLevel.Trace, 'trace', message, args);
  }

  debug(message: string, ...args: unknown[]): void {
    this.write(vscode.LogLevel.Debug, 'debug', message, args);
  }

  info(message: string, ...args: unknown[]): void {
    this.write(vscode.LogLevel.Info, 'info', message, args);
  }

  warn(message: string, ...args: unknown[]): void {
    this.write(vscode.LogLevel.Warning, 'warning', message, args);
  }

  error(error: string | Error, ...args: unknown[]): void {
    this.write(vscode.LogLevel.Error, 'error', error instanceof Error ? (error.stack ?? error.message) : error, args);
  }

  /** The latest lines as written (timestamp, level, message). */
  recent(): string[] {
    return [...this.recentLines];
  }

  private write(level: vscode.LogLevel, label: string, message: string, args: unknown[]): void {
    if (this.logLevel === vscode.LogLevel.Off || level < this.logLevel) return;
    const line = `${new Date().toISOString()} [${label}] ${args.length ? format(message, ...args) : message}`;
    this.recentLines.push(line);
    if (this.recentLines.length > RECENT_LINES) this.recentLines.splice(0, this.recentLines.length - RECENT_LINES);
    this.channel.appendLine(line);
  }

  append(value: string): void {
    this.channel.append(value);
  }

  appendLine(value: string): void {
    this.channel.appendLine(value);
  }

  replace(value: string): void {
    this.channel.replace(value);
  }

  clear(): void {
    this.channel.clear();
  }

  show(preserveFocus?: boolean): void;
  show(column?: vscode.ViewColumn, preserveFocus?: boolean): void;
  show(a?: boolean | vscode.ViewColumn, b?: boolean): void {
    if (typeof a === 'boolean' || a === undefined) this.channel.show(a);
    else this.channel.show(a, b);
  }

  hide(): void {
    this.channel.hide();
  }

  dispose(): void {
    this.channel.dispose();
  }
}
