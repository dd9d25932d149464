// Rendered single-object answers (a public profile, a resource or server page) for anonymous callers, kept until
// anything in the database changes, on any process (core/db/change-cache.ts). These are the hottest reads of the
// API and the same for every anonymous caller; sending the kept bytes costs a fraction of querying, mapping and
// serializing them again. A rendering must not depend on the caller or the clock.
import type { FastifyReply } from 'fastify';
import { createChangeCache } from '../db/change-cache.js';
import type { ChangeSignal } from '../db/change-cache.js';
import { renderWith, sendRendered, weakEtag } from './rendered.js';
import type { RenderedBody } from './rendered.js';

export type ObjectCache = ReturnType<typeof createObjectCache>;

export function createObjectCache(deps: { changes: ChangeSignal | undefined; maxEntries?: number }) {
  const cache = createChangeCache<RenderedBody>(deps);

  /** The rendered answer for `key`, with its ETag computed once per rendering. */
  const render = (key: string, produce: () => Promise<string>): Promise<RenderedBody> =>
    cache.get(key, async () => {
      const body = await produce();
      return { body, etag: weakEtag(body) };
    });

  return {
    render,

    /** Sends the answer for `key`, rendering `load()` with the route's serializer when none is kept. */
    async send(reply: FastifyReply, key: string, load: () => Promise<unknown>): Promise<FastifyReply> {
      return sendRendered(reply, await render(key, () => renderWith(reply, load())));
    },

    size: cache.size,
  };
}
