// Queue positions and public moderation statistics (spec/extensions.md §4).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerModerationQueue(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
