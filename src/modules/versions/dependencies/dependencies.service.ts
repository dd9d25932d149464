// Dependents of a resource and the dependency tree of a version (spec/extensions.md §2.2). Both are public
// views: the root resource must be visible to everyone (404 otherwise), and only public data is followed.
import type { Kysely } from 'kysely';
import type { VersionAccess } from '../../../core/auth/version-access.js';
import type { DB } from '../../../core/db/schema.js';
import { notFound } from '../../../core/http/errors.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import type { ResourcesService } from '../../resources/resources.service.js';
import { toResourceSummary } from '../../resources/resources.mapper.js';
import * as repo from './dependencies.repo.js';
import type { DependencyType, DependencyTreeView } from './dependencies.schemas.js';
import { MAX_TREE_DEPTH } from './dependencies.schemas.js';

export type DependenciesService = ReturnType<typeof createDependenciesService>;

type Resolved = Awaited<ReturnType<typeof repo.newestApprovedVersions>>[number];
type TreeNode = DependencyTreeView['nodes'][number];
type TreeMissing = DependencyTreeView['missing'][number];

export function createDependenciesService(deps: {
  db: Kysely<DB>;
  versionAccess: VersionAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
  urls: MediaUrls;
}) {
  const { db, versionAccess, resources, urls } = deps;

  /** 404 unless the public may see the resource (the existing rule: APPROVED resources only). */
  async function requirePublic(resourceId: string) {
    const head = await resources.requireHead(resourceId);
    await versionAccess.scope(null, head);
    return head;
  }

  /** The resource and version of a resolved row, as the tree shows them. */
  function placed(row: Resolved) {
    const summary = repo.joinedSummary(row);
    if (summary === null || row.v_id === null) throw new Error('A resolved dependency has no version');
    return {
      resource: toResourceSummary(summary, urls),
      version: {
        id: row.v_id,
        versionNumber: row.v_version_number ?? '',
        name: row.v_name,
        channel: row.v_channel ?? 'RELEASE',
      },
    };
  }

  /** The root: the given publicly visible version of the resource, or its newest APPROVED one. */
  async function treeRoot(resourceId: string, versionId: string | undefined) {
    const head = await requirePublic(resourceId);
    const [row] =
      versionId === undefined
        ? await repo.newestApprovedVersions(db, [resourceId])
        : await repo.publicVersions(db, [versionId]);
    if (row === undefined || row.v_id === null || row.r_id !== head.id) throw notFound('Version');
    return placed(row);
  }

  return {
    async dependents(
      resourceId: string,
      query: { type?: DependencyType | undefined; limit?: number; offset?: number },
    ) {
      await requirePublic(resourceId);
      const { page, total } = await repo.listDependents(db, resourceId, {
        type: query.type,
        limit: query.limit ?? 20,
        offset: query.offset ?? 0,
      });
      return {
        resources: page.map((row) => ({
          ...toResourceSummary(repo.joinedSummary(row)!, urls),
          dependencyType: row.dependency_type,
          viaVersionId: row.via_version_id,
        })),
        total,
      };
    },

    /**
     * REQUIRED dependencies, breadth first from the root version, each resolved to a version: a resource target
     * to its newest APPROVED version, a version target to that version while it is publicly visible. Each
     * resource appears once (the shallowest path wins), which also cuts cycles. Three queries per level.
     */
    async tree(resourceId: string, versionId: string | undefined): Promise<DependencyTreeView> {
      const root = await treeRoot(resourceId, versionId);
      const seen = new Set([root.resource.id]);
      const nodes: TreeNode[] = [];
      const missing: TreeMissing[] = [];
      let frontier = [root.version.id];
      for (let depth = 1; depth <= MAX_TREE_DEPTH && frontier.length > 0; depth++) {
        const order = new Map(frontier.map((id, index) => [id, index]));
        const edges = (await repo.requiredDependencies(db, frontier)).sort(
          (a, b) => order.get(a.version_id)! - order.get(b.version_id)! || a.position - b.position,
        );
        const resourceIds = edges.flatMap((e) =>
          e.target_kind === 'RESOURCE' ? (e.target_resource_id ?? []) : [],
        );
        const versionIds = edges.flatMap((e) =>
          e.target_kind === 'VERSION' ? (e.target_version_id ?? []) : [],
        );
        const [byResource, byVersion] = await Promise.all([
          resourceIds.length === 0 ? [] : repo.newestApprovedVersions(db, [...new Set(resourceIds)]),
          versionIds.length === 0 ? [] : repo.publicVersions(db, [...new Set(versionIds)]),
        ]);
        const resourceRows = new Map(byResource.map((row) => [row.r_id, row]));
        const versionRows = new Map(byVersion.map((row) => [row.v_id, row]));
        const next: string[] = [];
        for (const edge of edges) {
          const resolved =
            edge.target_kind === 'RESOURCE'
              ? resourceRows.get(edge.target_resource_id ?? '')
              : edge.target_kind === 'VERSION'
                ? versionRows.get(edge.target_version_id ?? '')
                : undefined;
          if (resolved === undefined || resolved.v_id === null) {
            missing.push({
              dependencyId: edge.id,
              requiredByVersionId: edge.version_id,
              depth,
              reason:
                edge.target_kind === 'EXTERNAL'
                  ? 'EXTERNAL'
                  : resolved === undefined
                    ? 'NOT_FOUND'
                    : 'NO_APPROVED_VERSION',
              resourceId: edge.target_kind === 'RESOURCE' ? edge.target_resource_id : null,
              versionId: edge.target_version_id,
              externalName: edge.external_name,
              externalUrl: edge.external_url,
              minVersion: edge.min_version,
            });
            continue;
          }
          const node = placed(resolved);
          if (seen.has(node.resource.id)) continue;
          seen.add(node.resource.id);
          nodes.push({
            ...node,
            type: 'REQUIRED',
            depth,
            requiredByVersionId: edge.version_id,
            minVersion: edge.min_version,
          });
          next.push(node.version.id);
        }
        frontier = next;
      }
      const truncated = await repo.anyRequired(db, frontier);
      return { root, nodes, missing, truncated };
    },
  };
}
