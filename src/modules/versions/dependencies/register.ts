// Version dependencies: dependents and the dependency tree (spec/extensions.md §2.2). Writing a version's
// dependencies is part of creating and updating it (versions.service.ts, through set-dependencies.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { dependenciesRoutes } from './dependencies.routes.js';
import { createDependenciesService } from './dependencies.service.js';

export async function registerDependencies(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const dependencies = createDependenciesService({
    db: context.database.db,
    versionAccess: shared.versionAccess,
    resources: shared.resources,
    urls: shared.urls,
  });
  await app.register(dependenciesRoutes, { dependencies });
}
