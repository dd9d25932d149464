import { Type } from 'typebox';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../core/events/catalogue.js';
import type { DeliveryStatus, WebhookFormat, WebhookScopeKind } from '../../core/db/schema.js';
import {
  Id,
  Limit,
  Nullable,
  Offset,
  PageMeta,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';

export const MAX_WEBHOOKS_PER_SCOPE = 20;
export const MAX_SUBSCRIBED_EVENTS = 60;
export const MAX_WEBHOOK_DESCRIPTION = 500;
export const ALL_EVENTS = '*';

export const WEBHOOK_SCOPE_KINDS = [
  'USER',
  'TEAM',
  'RESOURCE',
  'SERVER',
  'PLATFORM',
] as const satisfies readonly WebhookScopeKind[];
export const WEBHOOK_FORMATS = ['standard', 'discord'] as const satisfies readonly WebhookFormat[];
export const DELIVERY_STATUSES = [
  'PENDING',
  'SUCCEEDED',
  'FAILED',
] as const satisfies readonly DeliveryStatus[];

const ScopeKind = StringEnum(WEBHOOK_SCOPE_KINDS, {
  description:
    'USER: your resources, servers and events about you. TEAM: a team, its resources and servers (team OWNER ' +
    'or ADMIN). RESOURCE, SERVER: one object (its owner side, or a MAINTAINER of the resource). PLATFORM: ' +
    'everything (ADMIN or higher). Platform ADMIN and SUPER_ADMIN manage every webhook.',
});

const Format = StringEnum(WEBHOOK_FORMATS, {
  description:
    'standard: the event object as JSON, signed per Standard Webhooks (webhook-id, webhook-timestamp, ' +
    'webhook-signature). discord: a Discord webhook body ({embeds: [...]}), unsigned.',
});

const EventTypeOrAll = StringEnum([ALL_EVENTS, ...SUBSCRIBABLE_EVENT_TYPES], {
  description: 'An event type, or "*" alone for every type',
});

const SubscribedEvents = Type.Array(EventTypeOrAll, {
  minItems: 1,
  maxItems: MAX_SUBSCRIBED_EVENTS,
  description:
    `1–${MAX_SUBSCRIBED_EVENTS} event types, or exactly ["*"] for all of them ("*" mixed with types is a 400); ` +
    'duplicates are dropped',
});

const TargetUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Absolute https URL (http only where the operator set OUTBOUND_ALLOW_PRIVATE). A host that resolves to a ' +
    'loopback, private, link-local, CGNAT, multicast or unspecified address is refused: 400 ' +
    'OUTBOUND_TARGET_REFUSED. Redirects are never followed.',
});

const Description = Type.String({
  maxLength: MAX_WEBHOOK_DESCRIPTION,
  description: `At most ${MAX_WEBHOOK_DESCRIPTION} characters; null or empty clears it`,
});

const webhookFields = {
  id: Id,
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'The subscribed event types, or ["*"]' }),
  scope: Type.Object({ kind: ScopeKind, id: Nullable(Id) }),
  description: Nullable(Type.String()),
  format: Format,
  active: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({
      description: 'Why the service turned the webhook off (after 50 consecutive failed deliveries)',
    }),
  ),
  consecutiveFailures: Type.Integer({ description: 'Failed deliveries since the last success' }),
  createdBy: Type.Object(
    { id: Id, username: Type.String() },
    { description: 'Deliveries carry only events this user can see at delivery time' },
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const Webhook = named('Webhook', Type.Object(webhookFields));

export const CreatedWebhook = named(
  'CreatedWebhook',
  Type.Object({
    ...webhookFields,
    secret: Type.String({
      description:
        'The signing secret, `whsec_` + base64 of 32 bytes. Shown only in this answer (and by rotate-secret); ' +
        'store it now.',
    }),
  }),
);

export const WebhookList = Type.Object({
  webhooks: Type.Array(ref(Webhook)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const CreateWebhookBody = Type.Object(
  {
    url: TargetUrl,
    events: SubscribedEvents,
    scope: Type.Object(
      {
        kind: ScopeKind,
        id: Type.Optional(Id),
      },
      {
        additionalProperties: false,
        description:
          'id: the user (USER; defaults to you), team, resource or server. PLATFORM takes no id (400 if given).',
      },
    ),
    description: Type.Optional(Nullable(Description)),
    format: Type.Optional(Format),
    active: Type.Optional(Type.Boolean({ default: true, description: 'Defaults to true' })),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(TargetUrl),
    events: Type.Optional(SubscribedEvents),
    description: Type.Optional(Nullable(Description)),
    format: Type.Optional(Format),
    active: Type.Optional(
      Type.Boolean({
        description:
          'true turns the webhook (back) on, clears disabledReason and resets consecutiveFailures; false ' +
          'pauses it',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookListQuery = Type.Object({
  scopeKind: Type.Optional(ScopeKind),
  scopeId: Type.Optional(Id),
  limit: Type.Optional(Limit()),
  offset: Type.Optional(Offset),
});

export const WebhookIdParams = Type.Object({ webhookId: Id });
export const DeliveryParams = Type.Object({ webhookId: Id, deliveryId: Id });

export const WebhookSecret = Type.Object({
  secret: Type.String({
    description:
      'The new signing secret, shown only here. The previous one also signs (a second signature) for 24 hours.',
  }),
});

export const DeliveryAccepted = Type.Object({
  deliveryId: Id,
});

export const WebhookDelivery = named(
  'WebhookDelivery',
  Type.Object({
    id: Id,
    eventId: Id,
    eventType: Type.String(),
    status: StringEnum(DELIVERY_STATUSES, {
      description: 'PENDING until it succeeds or its retries run out (FAILED)',
    }),
    attempts: Type.Integer(),
    lastAttemptAt: Nullable(Timestamp),
    nextAttemptAt: Nullable(Timestamp),
    lastResponseStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    durationMs: Nullable(Type.Integer({ description: 'Of the last attempt' })),
    redeliveryOf: Nullable(Id),
    createdAt: Timestamp,
  }),
);

export const DeliveryList = Type.Object({
  deliveries: Type.Array(ref(WebhookDelivery)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  limit: Type.Optional(Limit()),
  offset: Type.Optional(Offset),
});
