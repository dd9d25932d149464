// The resource.* events (spec/extensions.md §1.1), recorded by the service that makes the change, in its
// transaction. The data names the resource as it is after the change (as it was, for a deletion).
import type { Transaction } from 'kysely';
import type { DB, ResourceStatus, ResourceType } from '../../core/db/schema.js';
import { recordEvent, resourcePlacement } from '../../core/events/record.js';
import type { ModerationAction } from './moderation/moderation.states.js';

type Trx = Transaction<DB>;

/** What the events need of a resource row. */
export interface EventResource {
  id: string;
  name: string;
  slug: string;
  type: ResourceType;
  status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

/** The API field names a PATCH (or an image route) can change, as `changed` lists them. */
export type ResourceField =
  | 'name'
  | 'shortDescription'
  | 'description'
  | 'categories'
  | 'tags'
  | 'gameVersions'
  | 'iconUrl'
  | 'bannerUrl'
  | 'status';

interface Change {
  at: string;
  actorId: string | null;
}

const describe = (resource: EventResource) => ({
  name: resource.name,
  slug: resource.slug,
  type: resource.type,
  status: resource.status,
});

function record(
  trx: Trx,
  type: 'resource.created' | 'resource.updated' | 'resource.deleted' | 'resource.moderated',
  change: Change,
  resource: EventResource,
  data: Record<string, unknown>,
): Promise<string> {
  return recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: resource.id,
    data,
    placement: resourcePlacement(resource),
  });
}

export const recordResourceCreated = (trx: Trx, change: Change, resource: EventResource) =>
  record(trx, 'resource.created', change, resource, describe(resource));

/** Records nothing when no field changed: an edit that leaves the resource as it was is not an event. */
export async function recordResourceUpdated(
  trx: Trx,
  change: Change,
  resource: EventResource,
  changed: readonly ResourceField[],
): Promise<void> {
  if (changed.length === 0) return;
  await record(trx, 'resource.updated', change, resource, { ...describe(resource), changed: [...changed] });
}

/**
 * `resource` is the row as it was when deleted. Its versions and files go with it by cascade and record no
 * events of their own: subscribers learn of them through this one.
 */
export const recordResourceDeleted = (trx: Trx, change: Change, resource: EventResource) =>
  record(trx, 'resource.deleted', change, resource, describe(resource));

export const recordResourceModerated = (
  trx: Trx,
  change: Change,
  resource: EventResource,
  moderation: { action: ModerationAction; fromStatus: ResourceStatus; reason: string | null },
) =>
  record(trx, 'resource.moderated', change, resource, {
    action: moderation.action,
    fromStatus: moderation.fromStatus,
    toStatus: resource.status,
    reason: moderation.reason,
  });

/** Whether two ID selections hold the same IDs, in any order. */
export function sameIds(current: readonly string[], next: readonly string[]): boolean {
  const before = new Set(current);
  const after = new Set(next);
  return before.size === after.size && [...after].every((id) => before.has(id));
}
