// The HTTP conventions of src/core/http/conventions/ as they show in the document, by the same rules that
// apply them at run time, so routes added later are documented too:
// - `Location` on every 201 (the created object's root-relative URL);
// - `Link` (first/prev/next/last) on every list answer whose body carries `meta: PageMeta`;
// - the optional `Idempotency-Key` request header on every POST that creates (a 201 with a JSON body), its
//   `Idempotent-Replayed` answer header and the 409 a reused key earns.
import type { OpenApiDocument, OperationObject, ResponseObject } from './openapi-types.js';
import { operationsOf } from './openapi-types.js';

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });

export const CONVENTION_HEADERS = {
  Link: header(
    'RFC 8288 links to the first, prev, next and last pages (root-relative URLs paging with limit and offset)',
    { type: 'string' },
  ),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer to an earlier request with the same key',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
};

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request from the same caller within 24 h returns the ' +
    'first answer again (with Idempotent-Replayed: true) instead of creating a second object; the same key ' +
    'with a different request is 409 IDEMPOTENCY_KEY_REUSED, and while the first is running 409 ' +
    'IDEMPOTENCY_KEY_IN_USE. 1–255 printable ASCII characters, e.g. a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]{1,255}$' },
  example: '7b4d0c8e-1f2a-4e3b-9c5d-6a7b8c9d0e1f',
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

const isPagedList = (response: ResponseObject | undefined): boolean => {
  const schema = response?.content?.['application/json']?.schema as
    { properties?: Record<string, { $ref?: string }> } | undefined;
  return schema?.properties?.['meta']?.$ref === '#/components/schemas/PageMeta';
};

const createsWithJson = (method: string, operation: OperationObject): boolean =>
  method === 'post' &&
  operation.responses?.['201'] !== undefined &&
  operation.requestBody?.content?.['application/json'] !== undefined;

export function withConventions<T>(document: T): T {
  const doc = document as OpenApiDocument;
  doc.components ??= {};
  doc.components.headers = { ...(doc.components.headers ?? {}), ...CONVENTION_HEADERS };
  for (const { method, operation } of operationsOf(doc)) {
    const responses = operation.responses ?? {};
    const created = responses['201'];
    if (created !== undefined) created.headers = { ...(created.headers ?? {}), Location: ref('Location') };
    const listed = responses['200'];
    if (listed !== undefined && isPagedList(listed))
      listed.headers = { ...(listed.headers ?? {}), Link: ref('Link') };
    if (!createsWithJson(method, operation)) continue;
    const parameters = (operation.parameters ??= []);
    if (
      !parameters.some((parameter) => parameter.in === 'header' && /^idempotency-key$/i.test(parameter.name))
    ) {
      parameters.push({ ...IDEMPOTENCY_PARAMETER, schema: { ...IDEMPOTENCY_PARAMETER.schema } });
    }
    created!.headers = { ...(created!.headers ?? {}), 'Idempotent-Replayed': ref('Idempotent-Replayed') };
    responses['409'] ??= {
      description: '',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return document;
}
