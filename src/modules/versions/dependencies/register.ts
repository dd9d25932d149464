// Version dependencies: dependents and the dependency tree (spec/extensions.md §2.2). Owned by the dependencies work.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';

export async function registerDependencies(
  _app: FastifyInstance,
  _context: AppContext,
  _shared: SharedServices,
): Promise<void> {}
