// GET /resources/:resourceId/versions/:versionId/suggestions (spec/extensions.md §2.3).
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { VERSION_TAGS } from '../versions.routes.js';
import { VersionParams } from '../versions.schemas.js';
import { VersionSuggestions } from './inspection.schemas.js';
import type { SuggestionsService } from './suggestions.service.js';

export async function suggestionsRoutes(
  fastify: FastifyInstance,
  { suggestions }: { suggestions: SuggestionsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/:resourceId/versions/:versionId/suggestions',
    {
      preHandler: requireUser,
      schema: {
        tags: VERSION_TAGS,
        summary: "Version number, dependencies and game versions suggested by the primary file's manifest",
        description:
          'Read from the Hytale plugin manifest.json found when the primary file was uploaded. Dependencies ' +
          '(REQUIRED) and OptionalDependencies (OPTIONAL) keep their manifest identifier as externalName; ' +
          'resourceId is set when a resource the caller may see (not this one) has the identifier, or its part ' +
          'after the last ":", as its slug (slugified) or its name (case-insensitive); a slug match wins, then ' +
          'the most downloaded. gameVersions are the game versions named exactly like ServerVersion (a range ' +
          'matches none). Without a primary file or manifest: versionNumber null and empty lists. Owner side ' +
          'or contributor: a version the caller cannot see is 404, one they see but do not manage 403.',
        operationId: 'getVersionSuggestions',
        params: VersionParams,
        security: SECURED,
        response: { 200: ref(VersionSuggestions), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      suggestions.suggest(requireActor(request), request.params.resourceId, request.params.versionId),
  );
}
