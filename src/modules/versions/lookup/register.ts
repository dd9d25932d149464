// Lookups by hash, update checks and the latest version (spec/extensions.md §2.1), and the SHA-512 backfill job. Owned by the hashes-and-lookup work.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerFileLookups(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
