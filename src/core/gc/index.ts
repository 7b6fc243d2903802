/** Public surface of the context GC (CLI, MCP). */
export { gcSession, SMART_ZONE, type GcInput, type GcResult, type GcReport, type GcTurn, type GcMeta } from './gcSession';
export { parseTrajectory, KNOWN_ROLES, type Trajectory, type Turn } from './schema';
export { FactCollector, type NodeRef } from './digest';
export { FactBook, type Fact, type FactKind } from './facts';
