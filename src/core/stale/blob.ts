import { createHash } from 'node:crypto';

/** Git's blob id of some content (`git hash-object`): the definitions cache key, equal to `ls-files -s` for clean files. */
export function blobId(content: Buffer | string): string {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
}
