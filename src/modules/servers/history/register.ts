// Server status history: sampling, hourly rollups, retention and GET /servers/:id/stats (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerServerHistory(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
