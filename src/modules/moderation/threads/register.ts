// Moderation threads (spec/extensions.md §4).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function registerModerationThreads(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {}
