// Suggestions from the primary file's manifest (spec/extensions.md §2.3): the version number, dependencies
// matched to resources the caller may see, and game versions. Three queries whatever the manifest holds.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../../core/auth/resource-access.js';
import type { DB } from '../../../core/db/schema.js';
import type { VersionsService } from '../versions.service.js';
import { inspectionOf } from './inspect-upload.js';
import type { ManifestView, VersionSuggestionsView } from './inspection.schemas.js';

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;

const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * What one manifest identifier may match, best first: "Group:Name" as written, then its Name part, each as a
 * slug (slugified) and as a resource name (lower-cased, as resources.name_key holds it).
 */
function candidatesOf(identifier: string): { slugs: string[]; names: string[] } {
  const colon = identifier.lastIndexOf(':');
  const forms = [identifier, colon >= 0 ? identifier.slice(colon + 1) : identifier]
    .map((form) => form.trim())
    .filter((form) => form !== '');
  return {
    slugs: [...new Set(forms.map(slugify).filter((slug) => slug !== ''))],
    names: [...new Set(forms.map((form) => form.toLowerCase()))],
  };
}

interface Candidate {
  id: string;
  slug: string;
  name_key: string;
  downloads: number;
}

/** The best candidate for one identifier: slug before name, the full identifier before its Name part. */
function bestMatch(identifier: string, candidates: readonly Candidate[]): string | undefined {
  const { slugs, names } = candidatesOf(identifier);
  for (const slug of slugs) {
    const found = candidates.find((candidate) => candidate.slug === slug);
    if (found !== undefined) return found.id;
  }
  for (const name of names) {
    const found = candidates.find((candidate) => candidate.name_key === name);
    if (found !== undefined) return found.id;
  }
  return undefined;
}

export function createSuggestionsService(deps: {
  db: Kysely<DB>;
  versions: Pick<VersionsService, 'requireEditable'>;
  resourceAccess: Pick<ResourceAccess, 'listVisibility'>;
}) {
  const { db, versions, resourceAccess } = deps;

  async function matchResources(
    actor: Actor,
    ownResourceId: string,
    manifest: ManifestView,
  ): Promise<Candidate[]> {
    const slugs = new Set<string>();
    const names = new Set<string>();
    for (const dependency of manifest.dependencies) {
      const found = candidatesOf(dependency.name);
      found.slugs.forEach((slug) => slugs.add(slug));
      found.names.forEach((name) => names.add(name));
    }
    if (slugs.size === 0 && names.size === 0) return [];
    const visibility = resourceAccess.listVisibility(actor);
    let query = db
      .selectFrom('resources')
      .select(['resources.id', 'resources.slug', 'resources.name_key', 'resources.downloads'])
      // A version cannot depend on its own resource (§2.2).
      .where('resources.id', '!=', ownResourceId)
      .where((eb) =>
        eb.or([
          ...(slugs.size > 0 ? [eb('resources.slug', 'in', [...slugs])] : []),
          ...(names.size > 0 ? [eb('resources.name_key', 'in', [...names])] : []),
        ]),
      )
      // Several resources of one name: the most downloaded is the likelier target.
      .orderBy('resources.downloads', 'desc')
      .orderBy('resources.id');
    if (visibility !== null) query = query.where(visibility);
    return query.execute();
  }

  async function matchGameVersions(
    serverVersion: string | null,
  ): Promise<VersionSuggestionsView['gameVersions']> {
    // An exact version ("=1.2" or "1.2"); a range (">=0.1", "*") names no single game version.
    const exact = serverVersion?.replace(/^==?\s*/, '').trim() ?? '';
    if (exact === '' || /[<>*^~|\s]/.test(exact)) return [];
    const rows = await db
      .selectFrom('game_versions')
      .select(['id', 'name'])
      .where((eb) => eb(eb.fn('lower', ['name']), '=', exact.toLowerCase()))
      .orderBy('release_order', 'desc')
      .execute();
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }

  return {
    /** Owner side or contributor (404 invisible, 401 anonymous, 403 without edit rights, as requireEditable). */
    async suggest(actor: Actor, resourceId: string, versionId: string): Promise<VersionSuggestionsView> {
      await versions.requireEditable(actor, resourceId, versionId);
      const primary = await db
        .selectFrom('version_files')
        .select('inspection')
        .where('version_id', '=', versionId)
        .where('is_primary', '=', true)
        .executeTakeFirst();
      const manifest = inspectionOf(primary?.inspection ?? null)?.manifest ?? null;
      if (manifest === null) return { versionNumber: null, dependencies: [], gameVersions: [] };
      const [candidates, gameVersions] = await Promise.all([
        matchResources(actor, resourceId, manifest),
        matchGameVersions(manifest.serverVersion),
      ]);
      const dependencies = manifest.dependencies.map((dependency) => {
        const resourceIdOfMatch = bestMatch(dependency.name, candidates);
        return {
          externalName: dependency.name,
          ...(resourceIdOfMatch === undefined ? {} : { resourceId: resourceIdOfMatch }),
          type: dependency.optional ? ('OPTIONAL' as const) : ('REQUIRED' as const),
          versionRange: dependency.versionRange,
        };
      });
      return { versionNumber: manifest.version, dependencies, gameVersions };
    },
  };
}
