// Atom feeds (extensions §1.3). Public and the same for every caller, so shared caches may keep them for a minute;
// the global etag plugin answers If-None-Match with 304.
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors, Id } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { ResourceListQuery } from '../resources/resources.schemas.js';
import type { FeedsService } from './feeds.service.js';

const ATOM_CONTENT_TYPE = 'application/atom+xml; charset=utf-8';
const FEED_CACHE_CONTROL = 'public, max-age=60';

const tags = ['feeds'];
const common =
  'Atom 1.0 (`application/atom+xml`), newest first, at most 50 entries. Public: signed-in callers get the same ' +
  'document. Entry ids and links are the API URLs of the objects under PUBLIC_URL; the feed has a rel="self" ' +
  'link. Weak ETag (If-None-Match → 304) and `Cache-Control: public, max-age=60`.';
const versionEntries =
  'A version entry is published at its approval, titled "<resource> <versionNumber>[: <name>]", with the ' +
  'changelog (sanitized HTML) as its content and its channel as category.';
const resourceEntries =
  'A resource entry is published at its first approval (later suspensions and reinstatements do not make it ' +
  'new again), with the short description as summary and its type, category slugs and tag slugs as categories.';

// Per content type: the document is Atom, the errors stay JSON (a plain `produces` would list them as Atom too).
const atomResponse = {
  200: {
    description: 'An Atom 1.0 feed document',
    content: { 'application/atom+xml': { schema: Type.String({ description: 'Atom 1.0 (XML)' }) } },
  },
  ...errors(400, 404),
};

const send = (reply: FastifyReply, body: string, etag?: string): FastifyReply => {
  reply.type(ATOM_CONTENT_TYPE).header('cache-control', FEED_CACHE_CONTROL);
  // A kept body comes with its ETag: the etag plugin then uses it instead of hashing the body again.
  if (etag !== undefined) reply.header('etag', etag);
  return reply.send(body);
};

export async function feedsRoutes(
  fastify: FastifyInstance,
  { feeds }: { feeds: FeedsService },
): Promise<void> {
  const app = typed(fastify);

  // A static segment: the router matches it before /resources/:id.
  app.get(
    '/resources/feed.atom',
    {
      schema: {
        tags,
        summary: 'Newly approved resources, filtered like GET /resources by type, tags and categories',
        description:
          `${common} ${resourceEntries} Filters combine with AND; within tags or categories a resource ` +
          'matches when it has any of the values; values that name no tag or category give an empty feed. ' +
          'Kept rendered for up to 60 seconds: approvals and every other change GET /resources shows appear ' +
          'at once, owner names within that minute.',
        operationId: 'getResourcesFeed',
        querystring: Type.Object({
          type: ResourceListQuery.properties.type,
          tags: ResourceListQuery.properties.tags,
          categories: ResourceListQuery.properties.categories,
        }),
        response: atomResponse,
      },
    },
    async (request, reply) => {
      const page = await feeds.catalogue(request.query);
      return send(reply, page.body, page.etag);
    },
  );

  app.get(
    '/resources/:id/feed.atom',
    {
      schema: {
        tags,
        summary: "A resource's approved versions with their changelogs",
        description: `${common} ${versionEntries} A resource that is not APPROVED has no feed (404).`,
        operationId: 'getResourceFeed',
        params: Type.Object({ id: Id }),
        response: atomResponse,
      },
    },
    async (request, reply) => send(reply, await feeds.resource(request.params.id)),
  );

  app.get(
    '/users/:userId/feed.atom',
    {
      schema: {
        tags,
        summary: 'Approved resources and versions a user publishes under their own name',
        description:
          `${common} Covers the user's own resources (not team resources, not contributions), APPROVED ones, ` +
          `and the APPROVED versions of those. ${resourceEntries} ${versionEntries} Unknown and banned users ` +
          'have no feed (404).',
        operationId: 'getUserFeed',
        params: Type.Object({ userId: Id }),
        response: atomResponse,
      },
    },
    async (request, reply) => send(reply, await feeds.user(request.params.userId)),
  );

  app.get(
    '/teams/:id/feed.atom',
    {
      schema: {
        tags,
        summary: 'Approved resources and versions a team publishes',
        description:
          `${common} Covers the team's APPROVED resources and their APPROVED versions. ${resourceEntries} ` +
          `${versionEntries} Unknown teams have no feed (404).`,
        operationId: 'getTeamFeed',
        params: Type.Object({ id: Id }),
        response: atomResponse,
      },
    },
    async (request, reply) => send(reply, await feeds.team(request.params.id)),
  );
}
