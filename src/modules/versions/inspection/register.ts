// Inspection at upload (spec/extensions.md §2.3): the inspection itself runs inside the upload
// (inspect-upload.ts, called by version-files.service.ts); this registers the suggestions route.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { suggestionsRoutes } from './suggestions.routes.js';
import { createSuggestionsService } from './suggestions.service.js';

export async function registerInspection(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const suggestions = createSuggestionsService({
    db: context.database.db,
    versions: shared.versions,
    resourceAccess: shared.resourceAccess,
  });
  await app.register(suggestionsRoutes, { suggestions });
}
