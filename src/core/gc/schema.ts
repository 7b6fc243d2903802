import { z } from 'zod';
import { K0Error } from '../errors';

/** Roles the GC understands. Any other role is kept verbatim (never folded or digested) and reported. */
export const KNOWN_ROLES = ['system', 'user', 'assistant', 'tool'] as const;

const turnSchema = z.looseObject({
  role: z.string().min(1, 'role must be a non-empty string'),
  content: z.string().default(''),
  tool_name: z.string().optional(),
  tool_output: z.string().optional(),
  /** What the tool was called with (`{command}`, `{file_path, content}` …): commands and files come from here. */
  tool_input: z.unknown().optional(),
});

export const trajectorySchema = z.looseObject({
  session_id: z.string().min(1, 'session_id must be a non-empty string'),
  turns: z.array(turnSchema),
});

export type Turn = z.infer<typeof turnSchema>;
export type Trajectory = z.infer<typeof trajectorySchema>;

export const gcOptionsSchema = z.object({
  threshold: z.number().int().min(1).max(100_000).default(20),
  hot_window: z.number().int().min(0).max(10_000).default(5),
  /** Turns before the hot window that are folded but not digested (default 2 × hot_window). */
  warm_window: z.number().int().min(0).max(10_000).optional(),
  context_window: z.number().int().min(1000).max(100_000_000).default(128_000),
});

export type GcOptions = z.infer<typeof gcOptionsSchema>;

function describe(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/** Parses a trajectory from JSON text or an object, with errors that name the offending field. */
export function parseTrajectory(input: unknown): Trajectory {
  let value = input;
  if (typeof input === 'string') {
    if (!input.trim()) throw new K0Error('INVALID_ARGUMENT', 'trajectory_json is empty');
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new K0Error('INVALID_ARGUMENT', `trajectory_json is not valid JSON: ${(err as Error).message}`);
    }
  }
  const r = trajectorySchema.safeParse(value);
  if (!r.success) throw new K0Error('INVALID_ARGUMENT', `invalid trajectory: ${describe(r.error)}`, { issues: r.error.issues.slice(0, 20) });
  return r.data;
}

export function parseGcOptions(input: unknown): GcOptions {
  const r = gcOptionsSchema.safeParse(input ?? {});
  if (!r.success) throw new K0Error('INVALID_ARGUMENT', `invalid gc options: ${describe(r.error)}`);
  return r.data;
}
