// Server keys and heartbeats (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerServerKeys(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
