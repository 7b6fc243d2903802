export { sniffConventions, sniffConventionsFor, targetPathFor, ruleFor, isoDate, type SniffOptions } from './sniff';
export { slugify } from './slug';
export { parseExplicit, readExplicitConventions, explicitSources, type ExplicitMapping } from './explicit';
export { inferNaming, nextNumber } from './heuristics';
export * from './types';
