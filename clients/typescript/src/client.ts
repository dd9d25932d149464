// The hand-written layer over the generated types: one `fetch` per call, auth headers, typed path/query/body and
// results per operation, page iteration, uploads and typed errors. No runtime dependency beyond fetch.
import { ApiError } from './errors.js';
import { formBody } from './form.js';
import type { paths } from './generated/schema.js';
import type {
  HttpMethod,
  ItemOf,
  Operation,
  OptionsArgument,
  PagedPaths,
  PathsFor,
  RequestOptions,
  SuccessBody,
  UploadOptions,
  UploadPaths,
} from './types.js';

export interface ClientOptions {
  /** Where the API is served, e.g. `https://api.example.org` (a path prefix is kept). */
  baseUrl: string;
  /** An API key (`mk_…`), sent as `x-api-key`. */
  apiKey?: string;
  /** A session token (`ms_…` from POST /auth/login), sent as `Authorization: Bearer`. */
  token?: string;
  /** Sent as User-Agent where the runtime allows it (not in browsers): the API asks clients to name themselves. */
  userAgent?: string;
  /** Another fetch (a test double, a proxy agent…); defaults to the global one. */
  fetch?: typeof fetch;
}

type Get<P extends PathsFor<'get'>> = Operation<P, 'get'>;
type Post<P extends PathsFor<'post'>> = Operation<P, 'post'>;
type Put<P extends PathsFor<'put'>> = Operation<P, 'put'>;
type Patch<P extends PathsFor<'patch'>> = Operation<P, 'patch'>;
type Delete<P extends PathsFor<'delete'>> = Operation<P, 'delete'>;

interface LooseOptions {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

interface PageMeta {
  total: number;
  limit: number;
  offset: number;
  page?: number;
}

export class MarketplaceClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The same client with other credentials (e.g. after creating an API key). */
  withAuth(auth: { apiKey?: string; token?: string }): MarketplaceClient {
    return new MarketplaceClient({ ...this.options, apiKey: auth.apiKey, token: auth.token });
  }

  get<P extends PathsFor<'get'>>(path: P, ...[options]: OptionsArgument<RequestOptions<Get<P>>>) {
    return this.json<SuccessBody<Get<P>>>('GET', path, options);
  }

  post<P extends PathsFor<'post'>>(path: P, ...[options]: OptionsArgument<RequestOptions<Post<P>>>) {
    return this.json<SuccessBody<Post<P>>>('POST', path, options);
  }

  put<P extends PathsFor<'put'>>(path: P, ...[options]: OptionsArgument<RequestOptions<Put<P>>>) {
    return this.json<SuccessBody<Put<P>>>('PUT', path, options);
  }

  patch<P extends PathsFor<'patch'>>(path: P, ...[options]: OptionsArgument<RequestOptions<Patch<P>>>) {
    return this.json<SuccessBody<Patch<P>>>('PATCH', path, options);
  }

  delete<P extends PathsFor<'delete'>>(path: P, ...[options]: OptionsArgument<RequestOptions<Delete<P>>>) {
    return this.json<SuccessBody<Delete<P>>>('DELETE', path, options);
  }

  /**
   * A multipart upload: `form` holds the file field (a Blob, a byte array or a ReadableStream, optionally as
   * `{data, fileName, contentType}`) and the operation's other fields. Streams are sent without buffering.
   */
  async upload<P extends UploadPaths>(
    path: P,
    options: UploadOptions<Post<P>>,
  ): Promise<SuccessBody<Post<P>>> {
    const prepared = formBody(options.form as Record<string, unknown>);
    const headers = this.headers(options.headers);
    if (prepared.contentType !== undefined) headers.set('content-type', prepared.contentType);
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers,
      body: prepared.body,
      signal: options.signal,
    };
    if (prepared.streamed) init.duplex = 'half';
    const response = await this.fetchImpl(this.url(path, options as LooseOptions), init);
    return (await this.read(response)) as SuccessBody<Post<P>>;
  }

  /**
   * Every item of a paged list, fetching page after page as the loop asks for more. Follows `meta`: page-based
   * lists (meta.page present) advance `page`, the others advance `offset` by the items received.
   */
  async *paginate<P extends PagedPaths>(
    path: P,
    ...[options]: OptionsArgument<RequestOptions<Get<P>>>
  ): AsyncGenerator<ItemOf<SuccessBody<Get<P>>>, void, undefined> {
    const loose = (options ?? {}) as LooseOptions;
    let query: Record<string, unknown> = { ...loose.query };
    let seen = 0;
    for (;;) {
      const body = (await this.json('GET', path, { ...loose, query })) as Record<string, unknown>;
      const items = Object.values(body).find(Array.isArray) as Array<ItemOf<SuccessBody<Get<P>>>> | undefined;
      const meta = body['meta'] as PageMeta | undefined;
      if (items === undefined || meta === undefined) throw new TypeError(`${path} is not a paged list`);
      yield* items;
      seen += items.length;
      if (items.length === 0 || meta.offset + items.length >= meta.total || seen >= meta.total) return;
      query =
        meta.page !== undefined
          ? { ...query, page: meta.page + 1 }
          : { ...query, offset: meta.offset + items.length };
    }
  }

  /**
   * The raw Response of any call (downloads, feeds, redirects). `redirect: 'manual'` returns a 302 itself in
   * Node; browsers hide manual redirects, so there follow them instead.
   */
  async raw(
    method: Uppercase<HttpMethod>,
    path: keyof paths,
    options: LooseOptions & { redirect?: RequestInit['redirect'] } = {},
  ): Promise<Response> {
    const response = await this.fetchImpl(this.url(path, options), {
      method,
      headers: this.headers(options.headers, options.body !== undefined),
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: options.redirect ?? 'follow',
      signal: options.signal,
    });
    if (response.status >= 400) throw await ApiError.from(response);
    return response;
  }

  private async json<T>(method: Uppercase<HttpMethod>, path: string, options: unknown): Promise<T> {
    const loose = (options ?? {}) as LooseOptions;
    const response = await this.fetchImpl(this.url(path, loose), {
      method,
      headers: this.headers(loose.headers, loose.body !== undefined),
      body: loose.body === undefined ? undefined : JSON.stringify(loose.body),
      signal: loose.signal,
    });
    return (await this.read(response)) as T;
  }

  private async read(response: Response): Promise<unknown> {
    if (!response.ok) throw await ApiError.from(response);
    if (response.status === 204) return undefined;
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('json')) return response.json();
    const text = await response.text();
    return text === '' ? undefined : text;
  }

  private headers(extra: Record<string, string> | undefined, json = false): Headers {
    const headers = new Headers({ accept: 'application/json' });
    if (json) headers.set('content-type', 'application/json');
    if (this.options.apiKey !== undefined) headers.set('x-api-key', this.options.apiKey);
    if (this.options.token !== undefined) headers.set('authorization', `Bearer ${this.options.token}`);
    if (this.options.userAgent !== undefined) headers.set('user-agent', this.options.userAgent);
    for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
    return headers;
  }

  /** Fills `{name}` segments from `options.path` and appends the query (arrays as repeated parameters). */
  private url(template: string, options: LooseOptions): string {
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.path?.[name];
      if (value === undefined || value === null || value === '') {
        throw new TypeError(`Path parameter ${name} of ${template} is missing`);
      }
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    const query = search.toString();
    return `${this.baseUrl}${path}${query === '' ? '' : `?${query}`}`;
  }
}

/** `createClient({ baseUrl, apiKey })`: the entry point. */
export const createClient = (options: ClientOptions) => new MarketplaceClient(options);
