// Validating and writing a version's dependencies on create and PATCH (spec/extensions.md §2.2). Runs inside
// the version's transaction, in two reads whatever the list size: the versions named as targets, then every
// target resource with the caller's facts about it.
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import { seesEveryStatus } from '../../../core/auth/resource-access.js';
import type { DB } from '../../../core/db/schema.js';
import type { VersionDependenciesTable } from '../../../core/db/schema/dependencies.js';
import { badRequest } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { findResourceTargets, findVersionTargets, replaceDependencies } from './dependencies.repo.js';
import type { DependencyInputBody } from './dependencies.schemas.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type PreparedDependency = Omit<
  VersionDependenciesTable,
  'id' | 'version_id' | 'position' | 'created_at'
>;

const PUBLIC_VERSION_STATUSES = new Set(['APPROVED', 'ARCHIVED']);
const UNKNOWN = 'unknown or not visible';

/**
 * The rows to store for `inputs`, or 400 with `details.fields` naming every bad entry: not exactly one target,
 * an externalUrl without externalName, the version's own resource (directly or through one of its versions),
 * an unknown or invisible target (both answered alike, so nothing hidden is revealed), or a target resource
 * named twice.
 */
export async function prepareDependencies(
  db: Executor,
  actor: Actor,
  ownResourceId: string,
  inputs: readonly DependencyInputBody[],
): Promise<PreparedDependency[]> {
  const fields: Record<string, string> = {};
  const at = (index: number, key?: string) =>
    `body.dependencies.${index}${key === undefined ? '' : `.${key}`}`;
  inputs.forEach((input, index) => {
    const targets = [input.resourceId, input.versionId, input.externalName].filter((v) => v !== undefined);
    if (targets.length !== 1) fields[at(index)] = 'needs exactly one of resourceId, versionId, externalName';
    else if (input.externalUrl !== undefined && input.externalName === undefined) {
      fields[at(index, 'externalUrl')] = 'is only allowed with externalName';
    }
  });
  if (Object.keys(fields).length > 0) throw invalid(fields);

  const versionIds = [...new Set(inputs.flatMap((input) => input.versionId ?? []))];
  const versions = versionIds.length === 0 ? [] : await findVersionTargets(db, versionIds);
  const versionById = new Map(versions.map((version) => [version.id, version]));
  const resourceIds = [
    ...new Set([...inputs.flatMap((input) => input.resourceId ?? []), ...versions.map((v) => v.resource_id)]),
  ];
  const resources = resourceIds.length === 0 ? [] : await findResourceTargets(db, resourceIds, actor.userId);
  const resourceById = new Map(resources.map((resource) => [resource.id, resource]));
  const moderator = seesEveryStatus(actor);
  // resource.view and seesEveryVersion of the access rules, from the facts read above.
  const seesAll = (id: string) => moderator || Number(resourceById.get(id)?.privileged ?? 0) === 1;
  const seesResource = (id: string) => resourceById.get(id)?.status === 'APPROVED' || seesAll(id);

  const firstUse = new Map<string, number>();
  const prepared = inputs.map((input, index): PreparedDependency => {
    const common = {
      type: input.type,
      external_name: null,
      external_url: null,
      min_version: input.minVersion ?? null,
    };
    if (input.externalName !== undefined) {
      return {
        ...common,
        target_kind: 'EXTERNAL',
        target_resource_id: null,
        target_version_id: null,
        external_name: input.externalName,
        external_url: input.externalUrl ?? null,
      };
    }
    let resourceId: string | undefined;
    const key = input.versionId !== undefined ? 'versionId' : 'resourceId';
    if (input.versionId !== undefined) {
      const version = versionById.get(input.versionId);
      const visible =
        version !== undefined &&
        seesResource(version.resource_id) &&
        ((resourceById.get(version.resource_id)?.status === 'APPROVED' &&
          PUBLIC_VERSION_STATUSES.has(version.status)) ||
          seesAll(version.resource_id));
      if (visible) resourceId = version.resource_id;
    } else if (input.resourceId !== undefined && seesResource(input.resourceId)) {
      resourceId = input.resourceId;
    }
    if (resourceId === undefined) fields[at(index, key)] = UNKNOWN;
    else if (resourceId === ownResourceId) fields[at(index, key)] = "is this version's own resource";
    else if (firstUse.has(resourceId)) {
      fields[at(index, key)] = `names the same resource as dependency ${firstUse.get(resourceId)}`;
    } else firstUse.set(resourceId, index);
    return {
      ...common,
      target_kind: input.versionId !== undefined ? 'VERSION' : 'RESOURCE',
      target_resource_id: resourceId ?? null,
      target_version_id: input.versionId ?? null,
    };
  });
  if (Object.keys(fields).length > 0) throw invalid(fields);
  return prepared;
}

function invalid(fields: Record<string, string>) {
  const [path, problem] = Object.entries(fields)[0]!;
  const self = Object.values(fields).some((message) => message.includes('own resource'));
  return badRequest(
    self ? 'A version cannot depend on its own resource' : `Invalid dependency: ${path} ${problem}`,
    { fields },
  );
}

/** Replaces the version's dependencies with `prepared`, in the given order. */
export async function writeDependencies(
  trx: Transaction<DB>,
  versionId: string,
  prepared: readonly PreparedDependency[],
  now: string,
): Promise<void> {
  await replaceDependencies(
    trx,
    versionId,
    prepared.map((row, position) => ({
      ...row,
      id: newId(),
      version_id: versionId,
      position,
      created_at: now,
    })),
  );
}
