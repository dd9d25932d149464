// Types that turn the generated `paths` into per-operation request options and results. Only types: nothing here
// exists at run time.
import type { components, paths } from './generated/schema.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that answer `M` (an operation the document declares, not `never`). */
export type PathsFor<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: infer O } ? ([O] extends [undefined] ? never : P) : never;
}[keyof paths];

/** The operation object of `M path`. */
export type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<
  paths[P][M & keyof paths[P]]
>;

type Present<T> = [Exclude<T, undefined>] extends [never] ? never : Exclude<T, undefined>;
type ParametersOf<O> = O extends { parameters: infer X } ? X : never;
export type PathParams<O> = ParametersOf<O> extends { path: infer X } ? Present<X> : never;
export type QueryParams<O> = ParametersOf<O> extends { query?: infer X } ? Present<X> : never;

type BodyContent<O> = O extends { requestBody?: infer B }
  ? B extends { content: infer C }
    ? C
    : never
  : never;
export type JsonBody<O> = BodyContent<O> extends { 'application/json': infer J } ? J : never;
export type FormBody<O> = BodyContent<O> extends { 'multipart/form-data': infer F } ? F : never;
type BodyRequired<O> = O extends { requestBody: unknown } ? true : false;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type JsonContent<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
/** The JSON body of any success response of the operation (undefined for bodiless ones such as 204). */
export type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? JsonContent<R[S]> : never }[keyof R]
  : never;

/** Every operation's possible error codes: the `code` of the document's Error shape, plus codes added later. */
export type KnownErrorCode = components['schemas']['Error']['code'];
// `string & {}` keeps the known codes in editor completion while accepting a code a newer server may send.
export type ErrorCode = KnownErrorCode | (string & {});

interface CommonOptions {
  /** Extra request headers (e.g. `Idempotency-Key`). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

type PathOption<O> = [PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> };
type QueryOption<O> = [QueryParams<O>] extends [never] ? { query?: undefined } : { query?: QueryParams<O> };
// A body whose fields are all optional may be left out (the server reads no body as none of them).
type BodyOption<O> = [JsonBody<O>] extends [never]
  ? { body?: undefined }
  : BodyRequired<O> extends true
    ? // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "nothing in it is required"
      {} extends JsonBody<O>
      ? { body?: JsonBody<O> }
      : { body: JsonBody<O> }
    : { body?: JsonBody<O> };

/** Options of a JSON operation: path parameters (required when the path has any), query, body. */
export type RequestOptions<O> = PathOption<O> & QueryOption<O> & BodyOption<O> & CommonOptions;

/** A rest-parameter tuple that makes the options optional exactly when nothing in them is required. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{}` is "an object with nothing required"
export type OptionsArgument<T> = {} extends T ? [options?: T] : [options: T];

/** What a file field accepts: bytes in memory, a Blob/File, or a stream (sent without buffering it). */
export type FileData = Blob | Uint8Array | ReadableStream<Uint8Array>;
export type FileInput = FileData | { data: FileData; fileName?: string; contentType?: string };

/** The form of an upload operation, file fields widened to FileInput. */
export type FormInput<F> = {
  [K in keyof F]: NonNullable<F[K]> extends Blob ? FileInput : F[K];
};

export type UploadOptions<O> = PathOption<O> &
  QueryOption<O> &
  CommonOptions & { form: FormInput<FormBody<O>> };

/** The POST paths whose body is multipart/form-data. */
export type UploadPaths = {
  [P in PathsFor<'post'>]: [FormBody<Operation<P, 'post'>>] extends [never] ? never : P;
}[PathsFor<'post'>];

/** The GET lists that page: their body carries `meta` (total, limit, offset, page?). */
export type PagedPaths = {
  [P in PathsFor<'get'>]: SuccessBody<Operation<P, 'get'>> extends { meta: unknown } ? P : never;
}[PathsFor<'get'>];

/** The item type of a paged list: the element type of the body's one array. */
export type ItemOf<B> = { [K in keyof B]: B[K] extends ReadonlyArray<infer I> ? I : never }[keyof B];
