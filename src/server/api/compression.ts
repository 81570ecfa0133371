import { constants as zlibConstants } from 'node:zlib';
import compression from 'compression';

/**
 * Pages and API answers above 1 KB go out compressed at a cheap level (static files are
 * precompressed at build time; event streams never are, or their frames would wait in a buffer).
 */
export function createCompression() {
  return compression({
    threshold: 1024,
    level: 4,
    brotli: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    filter: (_req, res) => {
      const type = String(res.getHeader('Content-Type') ?? '');
      return /^(text\/html|application\/json|text\/plain)/.test(type);
    },
  });
}
