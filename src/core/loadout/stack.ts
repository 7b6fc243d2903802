import { existsSync } from 'node:fs';
import { readRegularFile } from '../vault/regularFile';
import { join } from 'node:path';

/** Dependencies worth naming in a loadout, by manifest: package name → display name. Unknown ones are left out. */
const NOTABLE: Record<string, string> = {
  typescript: 'TypeScript', react: 'React', next: 'Next.js', vue: 'Vue', svelte: 'Svelte', express: 'Express', fastify: 'Fastify',
  '@nestjs/core': 'NestJS', prisma: 'Prisma', '@prisma/client': 'Prisma', pg: 'PostgreSQL', mysql2: 'MySQL', redis: 'Redis', ioredis: 'Redis',
  mongodb: 'MongoDB', mongoose: 'MongoDB', vite: 'Vite', electron: 'Electron', '@modelcontextprotocol/sdk': 'MCP SDK', zod: 'zod',
  'node-sqlite3-wasm': 'SQLite (WASM)', 'better-sqlite3': 'SQLite', 'onnxruntime-web': 'onnxruntime-web', graphql: 'GraphQL',
  tokio: 'Tokio', axum: 'Axum', actix_web: 'actix-web', 'actix-web': 'actix-web', serde: 'serde', sqlx: 'sqlx', diesel: 'Diesel', rusqlite: 'SQLite',
  'github.com/redis/go-redis/v9': 'Redis', 'github.com/go-redis/redis': 'Redis', 'github.com/jackc/pgx/v5': 'PostgreSQL (pgx)', 'github.com/lib/pq': 'PostgreSQL',
  'github.com/gin-gonic/gin': 'Gin', 'github.com/labstack/echo/v4': 'Echo', 'google.golang.org/grpc': 'gRPC', 'gorm.io/gorm': 'GORM',
  django: 'Django', flask: 'Flask', fastapi: 'FastAPI', sqlalchemy: 'SQLAlchemy', celery: 'Celery', pydantic: 'pydantic', numpy: 'NumPy', pandas: 'pandas', torch: 'PyTorch',
};

function read(path: string): string | undefined {
  try {
    // A FIFO package.json in a cloned repository never blocks the loadout.
    return existsSync(path) ? readRegularFile(path, 4 * 1024 * 1024).toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}

function notable(names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of names) {
    const display = NOTABLE[n] ?? NOTABLE[n.toLowerCase()];
    if (display && !out.includes(display)) out.push(display);
  }
  return out;
}

/**
 * The project's core stack, read from its manifests (package.json, go.mod, Cargo.toml, pyproject.toml) in the
 * project root; `configured` (`.k0maru/config.json` → `stack`) replaces detection entirely.
 */
export function detectStack(projectRoot: string, configured?: string[]): string[] {
  if (configured?.length) return configured;
  const out: string[] = [];
  const pkg = read(join(projectRoot, 'package.json'));
  if (pkg) {
    try {
      const j = JSON.parse(pkg) as Record<string, Record<string, string> | undefined>;
      const deps = { ...(j.dependencies ?? {}), ...(j.devDependencies ?? {}) };
      const node = (j.engines as Record<string, string> | undefined)?.node;
      out.push(`Node.js${node ? ' ' + node.replace(/^[^\d]*/, '') : ''}`);
      if (j.engines && (j.engines as Record<string, string>).vscode) out.push('VS Code extension');
      out.push(...notable(Object.keys(deps)));
    } catch {
      /* a broken package.json says nothing about the stack */
    }
  }
  const gomod = read(join(projectRoot, 'go.mod'));
  if (gomod) {
    const v = /^go\s+(\d+\.\d+)/m.exec(gomod)?.[1];
    out.push(`Go${v ? ' ' + v : ''}`);
    out.push(...notable([...gomod.matchAll(/^\s*([\w.\-/]+)\s+v[\d.]+/gm)].map((m) => m[1])));
  }
  const cargo = read(join(projectRoot, 'Cargo.toml'));
  if (cargo) {
    const edition = /^edition\s*=\s*"(\d+)"/m.exec(cargo)?.[1];
    out.push(`Rust${edition ? ' ' + edition : ''}`);
    const deps = cargo.split(/^\[/m).filter((s) => /^(dev-)?dependencies\]/.test(s));
    out.push(...notable(deps.flatMap((s) => [...s.matchAll(/^([\w-]+)\s*=/gm)].map((m) => m[1]))));
  }
  const py = read(join(projectRoot, 'pyproject.toml'));
  if (py) {
    const v = /requires-python\s*=\s*"[^\d]*([\d.]+)/.exec(py)?.[1];
    out.push(`Python${v ? ' ' + v : ''}`);
    out.push(...notable([...py.matchAll(/["']([A-Za-z][\w-]*)\s*(?:[<>=~!\[;]|["'])/g)].map((m) => m[1].toLowerCase())));
  }
  return [...new Set(out)];
}
