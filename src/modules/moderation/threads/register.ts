// Moderation threads (spec/extensions.md §4).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerModerationThreads(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
