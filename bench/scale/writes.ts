// Write cost on a big catalogue: server CPU µs per request of creating a resource, editing it (tags changed, so
// links, usage counts, catalog_refs and the search document move) and approving it, each a bounded sequential loop.
// Last, the resources it created are deleted again (timed too): a kept database (BENCH_SCALE_KEEP) is left as
// seeded, so the next run on it measures the same catalogue and can create the same (deterministic) slugs.
import { cpuOf, percentile } from './measure.js';
import type { Service } from './measure.js';
import { prng, int, pick } from './random.js';
import { descriptionOf, nameOf, shortDescriptionOf, slugOf } from './text.js';
import type { Vocabulary } from './text.js';

export interface WriteIds {
  categoryIds: string[];
  tagIds: string[];
  gameVersionIds: string[];
}

export interface WriteCost {
  requests: number;
  failed: number;
  firstError?: string;
  cpuPerRequest: number;
  p50: number;
}

async function loop(
  service: Service,
  count: number,
  request: (i: number) => { method: string; path: string; key: string; body: unknown },
  onAnswer?: (i: number, body: unknown) => void,
): Promise<WriteCost> {
  const times: number[] = [];
  let failed = 0;
  let firstError: string | undefined;
  const before = await cpuOf(service.child);
  for (let i = 0; i < count; i++) {
    const { method, path, key, body } = request(i);
    const started = performance.now();
    const response = await fetch(service.base + path, {
      method,
      headers:
        body === undefined ? { 'x-api-key': key } : { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    times.push(performance.now() - started);
    if (!response.ok) {
      failed += 1;
      firstError ??= `${response.status} ${text.slice(0, 200)}`;
    } else onAnswer?.(i, text === '' ? null : JSON.parse(text));
  }
  const cpu = (await cpuOf(service.child)) - before;
  return {
    requests: count,
    failed,
    ...(firstError === undefined ? {} : { firstError }),
    cpuPerRequest: cpu / count,
    p50: percentile(
      times.sort((a, b) => a - b),
      50,
    ),
  };
}

/** Deletes these resources through the API (so every counter and index moves as for any deletion). */
export function deleteResources(service: Service, key: string, ids: readonly string[]): Promise<WriteCost> {
  return loop(service, ids.length, (i) => ({
    method: 'DELETE',
    path: `/resources/${ids[i]}`,
    key,
    body: undefined,
  }));
}

export async function measureWrites(
  service: Service,
  keys: { authorKey: string; moderatorKey: string },
  ids: WriteIds,
  v: Vocabulary,
  count: number,
): Promise<Record<string, WriteCost>> {
  const random = prng(4242);
  const some = (list: string[], n: number) => [
    ...new Set(Array.from({ length: n }, () => pick(random, list))),
  ];
  const created: string[] = [];
  const create = await loop(
    service,
    count,
    (i) => {
      const name = nameOf(v, random);
      return {
        method: 'POST',
        path: '/resources',
        key: keys.authorKey,
        body: {
          name,
          slug: slugOf(name, `w${i}x${int(random, 1e9).toString(36)}`),
          shortDescription: shortDescriptionOf(v, random),
          description: descriptionOf(v, random, name),
          type: 'MOD',
          categoryIds: some(ids.categoryIds, 1),
          tagIds: some(ids.tagIds, 2),
          gameVersionIds: some(ids.gameVersionIds, 2),
        },
      };
    },
    (_, body) => created.push((body as { id: string }).id),
  );
  const n = created.length;
  const edit = await loop(service, n, (i) => ({
    method: 'PATCH',
    path: `/resources/${created[i]}`,
    key: keys.authorKey,
    body: { tagIds: some(ids.tagIds, 3), shortDescription: shortDescriptionOf(v, random) },
  }));
  const approve = await loop(service, n, (i) => ({
    method: 'PATCH',
    path: `/resources/moderation/${created[i]}/moderate`,
    key: keys.moderatorKey,
    body: { action: 'APPROVE' },
  }));
  // Editing an APPROVED resource also rewrites its search document.
  const editApproved = await loop(service, n, (i) => ({
    method: 'PATCH',
    path: `/resources/${created[i]}`,
    key: keys.authorKey,
    body: { tagIds: some(ids.tagIds, 2), name: nameOf(v, random) },
  }));
  const remove = await deleteResources(service, keys.authorKey, created);
  return {
    'POST /resources': create,
    'PATCH /resources/:id (tags, pending)': edit,
    'APPROVE (moderate)': approve,
    'PATCH /resources/:id (tags+name, approved)': editApproved,
    'DELETE /resources/:id (approved)': remove,
  };
}
