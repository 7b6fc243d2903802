// The long-lived host of a project (MCP server, `k0maru ui`, the editor) and the recall policy every adapter uses.
export { ProjectHost, type ProjectHostOptions, type FreshOptions, type HostRecallOptions, type ScanEvent } from './projectHost';
export { recallWithVectors, type PolicyRecallOptions, type VectorAttempt, type VectorSource } from './recallPolicy';
export { ScanGate, type ScanRequest } from './scanGate';
