import { Type } from 'typebox';
import { DEFAULT_RANK_WEIGHTS } from '../../config.js';
import {
  Id,
  LimitOffsetQuery,
  MarkdownDescription,
  Name,
  Nullable,
  PageMeta,
  ShortDescription,
  Slug,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';
import { rankExplanation } from './rank/rank.formula.js';
import { ModerationQueuePosition } from '../moderation/queue/queue.schemas.js';

export const SERVER_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'] as const;
export const ServerStatusName = StringEnum(SERVER_STATUSES, {
  description: 'Moderation status; only APPROVED servers are public',
});
export const OWNER_TYPES = ['USER', 'TEAM'] as const;
export const OwnerTypeName = StringEnum(OWNER_TYPES);
export const SERVER_SORTS = ['rank', 'players', 'newest', 'votes', 'relevance'] as const;
export const SERVER_FACET_NAMES = ['tags', 'categories'] as const;

export const DEFAULT_SERVER_PORT = 5520;
export const MAX_SERVER_TAGS = 10;
export const MAX_SERVER_CATEGORIES = 5;
/** Upper bound for player counts: far above any real server, low enough to stay a 32-bit integer. */
export const MAX_PLAYERS = 1_000_000;

export const ServerAddress = Type.String({
  minLength: 1,
  maxLength: 253,
  description: 'IPv4 or IPv6 address (without brackets or zone), or a hostname such as play.example.com',
});
const port = (description: string) => Type.Integer({ minimum: 1, maximum: 65535, description });

export const ServerCatalogRef = named(
  'ServerCatalogRef',
  Type.Object({ id: Id, name: Type.String(), slug: Type.String() }),
);

export const ServerOwner = named(
  'ServerOwner',
  Type.Object(
    {
      type: OwnerTypeName,
      id: Id,
      username: Type.Optional(Type.String({ description: 'USER owners' })),
      displayName: Type.Optional(Nullable(Type.String({ description: 'USER owners' }))),
      image: Type.Optional(Type.String({ description: 'USER owners: avatar URL (default avatar if none)' })),
      name: Type.Optional(Type.String({ description: 'TEAM owners' })),
      slug: Type.Optional(Type.String({ description: 'TEAM owners' })),
      logoUrl: Type.Optional(Nullable(Type.String({ description: 'TEAM owners' }))),
    },
    {
      description:
        'A USER owner carries username, displayName and image; a TEAM owner carries name, slug and logoUrl.',
    },
  ),
);

const summaryFields = {
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  shortDescription: Nullable(Type.String()),
  ip: Type.String(),
  port: Type.Integer(),
  online: Type.Boolean({
    description: 'Whether the last heartbeat or status report is younger than 3 minutes (and said online)',
  }),
  onlinePlayers: Type.Integer(),
  maxPlayers: Type.Integer(),
  rank: Nullable(
    Type.Integer({
      description:
        '1-based position among APPROVED servers by the transparent score (GET /servers/{id}/rank explains ' +
        'it), assigned at approval and recomputed every minute; null for servers that are not APPROVED',
    }),
  ),
  voteCount: Type.Integer({
    description:
      'Votes this calendar month (UTC); restarts at 0 on the 1st (a job resets it within 5 minutes of midnight)',
  }),
  totalVotes: Type.Integer({ description: 'Votes of all time' }),
  status: ServerStatusName,
  logoUrl: Nullable(Type.String()),
  bannerUrl: Nullable(Type.String()),
  createdAt: Timestamp,
};

/** How a server appears in the lists of one owner (GET /servers/user/:userId, /users/me/servers, teams). */
export const ServerSummary = named('ServerSummary', Type.Object(summaryFields));

const listItemFields = {
  ...summaryFields,
  ownerType: OwnerTypeName,
  ownerId: Id,
  owner: ref(ServerOwner),
  categories: Type.Array(ref(ServerCatalogRef), { description: 'By category order' }),
  tags: Type.Array(ref(ServerCatalogRef), { description: 'By name' }),
  lastReportedAt: Nullable(Timestamp),
  updatedAt: Timestamp,
};

/** A server in GET /servers: everything but the (long) markdown description and the moderation reason. */
export const ServerListItem = named('ServerListItem', Type.Object(listItemFields));

export const Server = named(
  'Server',
  Type.Object({
    ...listItemFields,
    description: Nullable(Type.String({ description: 'Markdown' })),
    statusReason: Nullable(
      Type.String({
        description: 'Reason of the last rejection or suspension (seen by the owner side and moderators)',
      }),
    ),
    moderation: Type.Optional(ref(ModerationQueuePosition)),
    version: Nullable(
      Type.String({ description: 'Game version the last heartbeat named (null: none sent)' }),
    ),
    motd: Nullable(
      Type.String({
        description: 'Message of the day from the last heartbeat, plain text (formatting removed)',
      }),
    ),
    latencyMs: Nullable(
      Type.Integer({ description: 'Latency the last heartbeat measured, in milliseconds' }),
    ),
    lastHeartbeatAt: Nullable(Timestamp),
  }),
);

const FacetCounts = Type.Record(Type.String(), Type.Integer(), {
  description: 'Value (slug) → number of matching servers; the top 50 by count, then slug; zeros absent',
});

export const ServerList = Type.Object({
  servers: Type.Array(ref(ServerListItem)),
  total: Type.Integer({
    description:
      'The maintained count of APPROVED servers without filters; with one tag or category alone its ' +
      'maintained usage count; otherwise the matches, counted up to 10,000 (a lower bound when ' +
      'meta.totalExact is false)',
  }),
  meta: Type.Object({
    ...PageMeta.properties,
    totalExact: Type.Boolean({
      description:
        "False when more than 10,000 servers match: `total` is then 10,000, a lower bound (a search's pages " +
        'stop there; those of tags and categories alone go on). Always true without filters and for one tag or ' +
        'category alone',
    }),
    facets: Type.Optional(
      Type.Object(
        { tags: Type.Optional(FacetCounts), categories: Type.Optional(FacetCounts) },
        {
          description:
            'Present when `facets` is asked: for each asked facet, the counts over every server matching the ' +
            "search and all filters (the facet's own filter included, as Meilisearch does), not just this page " +
            '(see `facetsExact`)',
        },
      ),
    ),
    facetsExact: Type.Optional(
      Type.Boolean({
        description:
          'With `facets`: false when more than 2,000 servers match a search or filter; the counts then cover ' +
          '2,000 of the matches only, each a lower bound. Without a search or filter facets are always exact',
      }),
    ),
  }),
});

export const ServerSummaryList = Type.Object({ servers: Type.Array(ref(ServerSummary)) });

export const ServerListQuery = Type.Object({
  ...LimitOffsetQuery.properties,
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Full-text search: every word must match the name, tag or category names, short description, ' +
        'description or owner name; the last word matches as a prefix unless the search ends with a space or ' +
        'punctuation (type-ahead); case and diacritics are ignored. Words typed joined by punctuation ' +
        '(`epic-trees`, `user_42`) must stand next to each other, in that order, within one field. No word ' +
        '(empty, punctuation only) means no search. Order stays `sort` (rank by default); `sort=relevance` ' +
        "orders by relevance. A search's pages reach its first 10,000 matches, as many as its total counts: " +
        'a page past them is empty (its total and facets stay)',
    }),
  ),
  categories: Type.Optional(
    Type.Array(Id, {
      maxItems: 50,
      description: 'Category ids (repeat or comma-separate): servers in at least one of them',
    }),
  ),
  tags: Type.Optional(
    Type.Array(Id, {
      maxItems: 50,
      description: 'Tag ids (repeat or comma-separate): servers with at least one of them',
    }),
  ),
  sort: Type.Optional(
    StringEnum(SERVER_SORTS, {
      description:
        'rank (default): by rank, where ' +
        `${rankExplanation(DEFAULT_RANK_WEIGHTS)} The weights shown are the defaults; the ones this ` +
        'deployment uses are in GET /servers/{id}/rank. players: by online players now, then oldest; ' +
        'newest: newest first; votes: by votes this month, then oldest; relevance (extension, with a search): ' +
        'by relevance tier — the exact name, then all words in the name, then in the name, tags, categories ' +
        'and short description, then also the description, then anywhere (owner name) — then by rank; ' +
        'without a search, relevance is the rank order',
    }),
  ),
  facets: Type.Optional(
    Type.Array(StringEnum(SERVER_FACET_NAMES), {
      maxItems: 50,
      description:
        'Facets to count (extension; repeat or comma-separate): tags, categories → meta.facets. Another ' +
        'name is a 400',
    }),
  ),
});

const idList = (max: number, what: string) =>
  Type.Array(Id, { maxItems: max, uniqueItems: true, description: `${what} ids, at most ${max}` });

export const CreateServerBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    shortDescription: Type.Optional(Nullable(ShortDescription)),
    description: Type.Optional(Nullable(MarkdownDescription)),
    ip: ServerAddress,
    port: Type.Optional(port(`1–65535; default ${DEFAULT_SERVER_PORT}`)),
    categoryIds: Type.Optional(idList(MAX_SERVER_CATEGORIES, 'Server category')),
    tagIds: Type.Optional(idList(MAX_SERVER_TAGS, 'Server tag')),
    ownerId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Your user id (default) or the id of a team in which you are OWNER or ADMIN',
      }),
    ),
    ownerType: Type.Optional(StringEnum(OWNER_TYPES, { description: 'USER (default) or TEAM' })),
  },
  { additionalProperties: false },
);

export const UpdateServerBody = Type.Object(
  {
    name: Type.Optional(Name),
    shortDescription: Type.Optional(Nullable(ShortDescription)),
    description: Type.Optional(Nullable(MarkdownDescription)),
    ip: Type.Optional(ServerAddress),
    port: Type.Optional(port('1–65535')),
    categoryIds: Type.Optional(idList(MAX_SERVER_CATEGORIES, 'Server category')),
    tagIds: Type.Optional(idList(MAX_SERVER_TAGS, 'Server tag')),
  },
  { additionalProperties: false },
);

export const TransferServerBody = Type.Object(
  {
    newOwnerId: Id,
    ownerType: StringEnum(OWNER_TYPES, {
      description: 'USER: any active user; TEAM: a team in which you are OWNER or ADMIN',
    }),
  },
  { additionalProperties: false },
);

export const TransferServerResponse = Type.Object({
  message: Type.String(),
  server: Type.Object({ id: Id, ownerId: Id, ownerType: OwnerTypeName }),
});

export const ServerIdParams = Type.Object({ id: Id });
export const ServerSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
export const UserIdParams = Type.Object({ userId: Id });
