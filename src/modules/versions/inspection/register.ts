// Inspection at upload: the suggestions route (spec/extensions.md §2.3). Owned by the inspection work.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerInspection(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
