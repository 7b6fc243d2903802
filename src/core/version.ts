// Replaced at bundle time by esbuild's define; falls back to package.json when run from source.
declare const __K0MARU_VERSION__: string | undefined;
export const VERSION: string = typeof __K0MARU_VERSION__ === 'string' ? __K0MARU_VERSION__ : require('../../package.json').version;
