// Server keys and heartbeats (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function registerServerKeys(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {}
