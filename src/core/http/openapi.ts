// OpenAPI document at GET /openapi.json, generated from the route schemas; interactive docs at GET /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { withoutUnusedSchemas } from './openapi-components.js';
import { withConventions } from './openapi-conventions.js';
import { withExamples } from './openapi-examples.js';
import { withMultipartBodies } from './openapi-multipart.js';
import { withOpenApiPaths } from './openapi-paths.js';
import { withDerivedResponses } from './openapi-responses.js';
import { collectRouteFacts } from './openapi-route-facts.js';
import { namedSchemas } from './schemas.js';

export const API_TAGS = [
  { name: 'system', description: 'Health, readiness and this document' },
  { name: 'auth', description: 'Accounts: register, log in, log out' },
  { name: 'api-keys', description: 'API keys of the caller' },
  { name: 'users', description: 'User profiles, follows and profile social links' },
  { name: 'teams', description: 'Teams, their members, invitations, images and social links' },
  {
    name: 'resources',
    description:
      'Resources (mods, plugins, packs…): catalogue, moderation, categories, external links, contributors, ' +
      'likes, favorites and description images',
  },
  {
    name: 'versions',
    description: 'Resource versions: status workflow, files (upload, primary), downloads (signed URLs, ZIP)',
  },
  { name: 'galleries', description: 'Resource gallery images' },
  { name: 'resource-tags', description: 'Resource tags' },
  { name: 'game-versions', description: 'Game versions resources declare compatibility with' },
  {
    name: 'servers',
    description:
      'Game-server directory: servers, moderation, status and ranks, social links, description images',
  },
  { name: 'server-catalogs', description: 'Server tags and server categories' },
  { name: 'reports', description: 'Reports about users and resources, and their moderation' },
  { name: 'badges', description: 'Badges and the users who hold them' },
  {
    name: 'events',
    description:
      'The event log: every change to resources, versions, files, servers, teams, reports, badges and follows, ' +
      'as a cursor feed filtered to what the caller may see',
  },
  {
    name: 'webhooks',
    description:
      'Webhooks: signed (Standard Webhooks) deliveries of events to your URL, with retries, a delivery log and ' +
      'redelivery',
  },
  { name: 'feeds', description: 'Atom feeds of approved resources and versions' },
  { name: 'admin', description: 'Account administration' },
  { name: 'moderation', description: 'Moderation in the open: queue statistics across every kind' },
  { name: 'cdn', description: 'Images and signed file downloads' },
];

/** Security requirement for routes whose auth level is "required" or "optional". */
export const SECURED: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearerAuth: [] }];

/** Optional credentials: anonymous callers are served too, signed-in ones may see more. */
export const OPTIONAL_AUTH: Array<Record<string, string[]>> = [{}, ...SECURED];

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  for (const schema of namedSchemas()) app.addSchema(schema);
  // Registered before every module, so each route's facts are known when the document is finished.
  const routeFacts = collectRouteFacts(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Marketplace and Server Listing API',
        version: '1.0.0',
        description:
          'Game-content marketplace (resources, versions, files, moderation) and game-server directory. ' +
          'Authenticate with `x-api-key` or `Authorization: Bearer <token>`. Errors are ' +
          '`{statusCode, error, message, code, details?}`.',
      },
      servers: [{ url: config.publicUrl }],
      tags: API_TAGS,
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearerAuth: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    // Post-processes the finished document (one function per concern, each in its own openapi-*.ts file).
    // Order matters: the multipart and responses steps look routes up by the paths Fastify registered, which the
    // paths step then renames; examples come last so they cover every response the steps before added.
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? withoutUnusedSchemas(
            withExamples(
              withOpenApiPaths(
                withDerivedResponses(
                  withConventions(withMultipartBodies(documentObject.openapiObject)),
                  routeFacts,
                ),
              ),
            ),
          )
        : documentObject.swaggerObject,
    refResolver: {
      // Named shapes keep their names as components instead of def-N.
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: withoutHttpsUpgrade,
  });
}

/**
 * swagger-ui's strict policy ends in `upgrade-insecure-requests`, which makes a browser fetch every asset of a
 * page opened over plain HTTP (a self-hosted instance on a LAN name) from https:// — nothing answers there and
 * /docs stays blank. Without it the policy is as strict: assets come from 'self', whatever scheme served the
 * page. Behind TLS, HSTS (helmet) already keeps browsers on https.
 */
export function withoutHttpsUpgrade(policy: string): string {
  return policy
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && directive.toLowerCase() !== 'upgrade-insecure-requests')
    .join('; ');
}
