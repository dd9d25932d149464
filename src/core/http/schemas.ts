// Shared TypeBox shapes. Named shapes are registered once (components in the OpenAPI document) and
// referenced with ref(), which keeps the static type while emitting a $ref.
import { Type } from 'typebox';
import type { Static, TSchema, TUnsafe } from 'typebox';
import { ERROR_CODES } from './error-codes.js';
import type { ErrorCode } from './error-codes.js';

const registry = new Map<string, TSchema>();

/** Declares a named shape: it becomes `#/components/schemas/<id>` in the OpenAPI document. */
export function named<T extends TSchema>(id: string, schema: T): T {
  const withId = { ...schema, $id: id } as T;
  registry.set(id, withId);
  return withId;
}

/** A typed reference to a named shape. */
export function ref<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  const id = (schema as { $id?: string }).$id;
  if (id === undefined) throw new Error('ref() needs a schema declared with named()');
  return Type.Unsafe<Static<T>>({ $ref: `${id}#` });
}

export function namedSchemas(): TSchema[] {
  return [...registry.values()];
}

export const Id = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Identifier (UUIDv7)',
  examples: ['019a8f4e-6a1b-7c3d-8e2f-0123456789ab'],
});
export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 timestamp, UTC',
  examples: ['2026-11-24T10:00:00.000Z'],
});
/**
 * `T | null`. Scalars become `type: [t, 'null']` rather than `anyOf`: fast-json-stringify serializes an `anyOf`
 * by running a validator per value, which cost about a third of a profile read.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

/** http(s) URL, at most 2,048 characters (DESIGN §6). */
export const HttpUrl = Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', format: 'uri' });
export const Slug = Type.String({
  minLength: 3,
  maxLength: 64,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'Lower-case letters, digits and single hyphens; 3–64 characters',
  examples: ['example-slug'],
});
export const Name = Type.String({ minLength: 1, maxLength: 100 });
export const ShortDescription = Type.String({ maxLength: 250 });
export const MarkdownDescription = Type.String({ maxLength: 50_000 });

export const ErrorBody = named(
  'Error',
  Type.Object({
    statusCode: Type.Integer(),
    error: Type.String({ description: 'HTTP status name' }),
    message: Type.String(),
    // Declared with `enum` directly: StringEnum is defined further down this file.
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: [...ERROR_CODES],
      description:
        'Stable machine code (the full list is this enum; new codes may be added, so treat unknown ones by status)',
    }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    requestId: Type.String({ description: 'The request id, as in the x-request-id response header' }),
  }),
);

export const Message = named('Message', Type.Object({ message: Type.String() }));

export const PageMeta = named(
  'PageMeta',
  Type.Object({
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    page: Type.Optional(Type.Integer()),
  }),
);

/**
 * Paging bounds. Past ten million rows an offset is a crawl, not a page, and every value here fits the integer
 * types of both dialects (an unbounded `offset=1e19` overflowed PostgreSQL's bigint and was a 500).
 */
export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000_000;
/** The last page whose offset stays within MAX_OFFSET at the largest limit. */
export const MAX_PAGE = MAX_OFFSET / MAX_LIMIT + 1;

export const Limit = (defaultLimit = 20) =>
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: defaultLimit, description: `1–${MAX_LIMIT}` });
export const Offset = Type.Integer({
  minimum: 0,
  maximum: MAX_OFFSET,
  default: 0,
  description: `Items to skip, 0–${MAX_OFFSET.toLocaleString('en')}`,
});
export const Page = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE,
  default: 1,
  description: `1-based page; the offset it implies stays within ${MAX_OFFSET.toLocaleString('en')}`,
});

export const LimitOffsetQuery = Type.Object({
  limit: Type.Optional(Limit()),
  offset: Type.Optional(Offset),
});

/**
 * `offset` on a page-based list: no default (whether it was sent matters), a multiple of `limit`, turned into its
 * page before the handler runs (conventions/pagination.ts).
 */
export const PageOffset = Type.Integer({
  minimum: 0,
  maximum: MAX_OFFSET,
  description: `Items to skip, a multiple of limit (0, limit, 2×limit…); the alternative to page. Both given: they must agree`,
});

export const PageQuery = Type.Object({
  page: Type.Optional(Page),
  limit: Type.Optional(Limit()),
  offset: Type.Optional(PageOffset),
});

export const IdParams = Type.Object({ id: Id });

/** Error responses every authenticated route can produce; spread into `response`. */
const errorRef = ref(ErrorBody);
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, errorRef])) as Record<number, typeof errorRef>;

/** The array query parameters accept repeats and comma-separated values, at most 50 items. */
export const QueryList = <T extends TSchema>(item: T) => Type.Array(item, { maxItems: 50 });

/** A string restricted to a list of values, typed as their union. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
