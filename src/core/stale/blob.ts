import { crypto } from '../fsutil/lazyBuiltin';

/** Git's blob id of some content (`git hash-object`): the definitions cache key, equal to `ls-files -s` for clean files. */
export function blobId(content: Buffer | string): string {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return crypto().createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
}

/** The blob id in the repository's hash: 40 hex digits SHA-1, 64 SHA-256. */
export function blobIdOf(content: Buffer, hexLength: number): string {
  if (hexLength !== 64) return blobId(content);
  return crypto().createHash('sha256').update(`blob ${content.length}\0`).update(content).digest('hex');
}
