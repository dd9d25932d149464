import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CreateWebhookBody,
  CreatedWebhook,
  DeliveryAccepted,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  MAX_WEBHOOKS_PER_SCOPE,
  UpdateWebhookBody,
  Webhook,
  WebhookIdParams,
  WebhookList,
  WebhookListQuery,
  WebhookSecret,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['webhooks'];
const security = SECURED;
const MANAGER_ONLY =
  "Only the webhook's managers (see POST /webhooks) reach it; to anyone else it does not exist (404).";

export async function webhooksRoutes(
  fastify: FastifyInstance,
  { webhooks }: { webhooks: WebhooksService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/webhooks',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Subscribe a URL to events in a scope; answers the signing secret, once',
        description:
          'Who may create (and later manage) a webhook depends on its scope: USER — yourself (id omitted or ' +
          "yours; another user's id is 403); TEAM — the team's OWNER or ADMIN (404 for an unknown team); " +
          'RESOURCE — its owner side or a MAINTAINER (404 for a resource you cannot see); SERVER — its user ' +
          'owner or any member of the owning team (404 for a server you cannot see); PLATFORM — ADMIN or ' +
          'higher, no id. Platform ADMIN and SUPER_ADMIN manage every webhook. Anyone else in the scope: 403. ' +
          `At most ${MAX_WEBHOOKS_PER_SCOPE} webhooks per scope (409 LIMIT_REACHED). The URL is checked ` +
          'against the outbound rules (400 OUTBOUND_TARGET_REFUSED). The secret is stored encrypted and never ' +
          'shown again; rotate it if lost.',
        operationId: 'createWebhook',
        body: CreateWebhookBody,
        security,
        response: { 201: ref(CreatedWebhook), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await webhooks.create(requireActor(request), request.body)),
  );

  app.get(
    '/webhooks',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'The webhooks you manage, newest first',
        description:
          'scopeKind and scopeId narrow the list to one scope; a scope you do not manage gives an empty list, ' +
          'not an error. Platform ADMIN and SUPER_ADMIN see every webhook.',
        operationId: 'listWebhooks',
        querystring: WebhookListQuery,
        security,
        response: { 200: WebhookList, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { scopeKind, scopeId, limit = 20, offset = 0 } = request.query;
      const page = await webhooks.list(requireActor(request), { scopeKind, scopeId, limit, offset });
      return { ...page, meta: { total: page.total, limit, offset } };
    },
  );

  app.get(
    '/webhooks/:webhookId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'A webhook you manage (never its secret)',
        description: MANAGER_ONLY,
        operationId: 'getWebhook',
        params: WebhookIdParams,
        security,
        response: { 200: ref(Webhook), ...errors(400, 401, 404) },
      },
    },
    async (request) => webhooks.get(requireActor(request), request.params.webhookId),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Edit a webhook: url, events, description, format, active',
        description:
          `${MANAGER_ONLY} A new url is checked again (400 OUTBOUND_TARGET_REFUSED). active: true also clears ` +
          'disabledReason and resets consecutiveFailures. The scope and the creator never change.',
        operationId: 'updateWebhook',
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        security,
        response: { 200: ref(Webhook), ...errors(400, 401, 404) },
      },
    },
    async (request) => webhooks.update(requireActor(request), request.params.webhookId, request.body),
  );

  app.delete(
    '/webhooks/:webhookId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a webhook and its delivery log',
        description: `${MANAGER_ONLY} Pending deliveries are dropped with it.`,
        operationId: 'deleteWebhook',
        params: WebhookIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(requireActor(request), request.params.webhookId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Replace the signing secret; the old one keeps signing for 24 hours',
        description:
          `${MANAGER_ONLY} For 24 hours deliveries carry two signatures (new and previous secret), so a ` +
          'receiver can switch without missing one. Rotating again within those 24 hours makes the current ' +
          'secret the previous one; the one before is dropped.',
        operationId: 'rotateWebhookSecret',
        params: WebhookIdParams,
        security,
        response: { 200: WebhookSecret, ...errors(400, 401, 404) },
      },
    },
    async (request) => webhooks.rotateSecret(requireActor(request), request.params.webhookId),
  );

  app.post(
    '/webhooks/:webhookId/ping',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Queue a webhook.ping event for this webhook',
        description:
          `${MANAGER_ONLY} The ping is delivered like any event (signed, retried) to this webhook only; follow ` +
          'it in the delivery log. 409 WEBHOOK_INACTIVE while the webhook is inactive.',
        operationId: 'pingWebhook',
        params: WebhookIdParams,
        security,
        response: { 202: DeliveryAccepted, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await webhooks.ping(requireActor(request), request.params.webhookId)),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "The webhook's delivery log, newest first",
        description:
          `${MANAGER_ONLY} Deliveries are kept as long as their events (EVENT_RETENTION_DAYS). lastError and ` +
          'lastResponseStatus describe the last attempt; redeliveryOf names the delivery a redelivery re-sends.',
        operationId: 'listWebhookDeliveries',
        params: WebhookIdParams,
        querystring: DeliveryListQuery,
        security,
        response: { 200: DeliveryList, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { status, limit = 20, offset = 0 } = request.query;
      const page = await webhooks.listDeliveries(requireActor(request), request.params.webhookId, {
        status,
        limit,
        offset,
      });
      return { ...page, meta: { total: page.total, limit, offset } };
    },
  );

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Send an event again: a new delivery of the same event',
        description:
          `${MANAGER_ONLY} The new delivery is due at once and has redeliveryOf set; the original keeps its ` +
          'history. A delivery of another webhook is 404. 409 WEBHOOK_INACTIVE while the webhook is inactive.',
        operationId: 'redeliverWebhookDelivery',
        params: DeliveryParams,
        security,
        response: { 202: DeliveryAccepted, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await webhooks.redeliver(
            requireActor(request),
            request.params.webhookId,
            request.params.deliveryId,
          ),
        ),
  );
}
