// @marketplace/client: a typed client for the Marketplace and Server Listing API.
export { MarketplaceClient, createClient } from './client.js';
export type { ClientOptions } from './client.js';
export { ApiError, UNEXPECTED_RESPONSE } from './errors.js';
export type { components, operations, paths } from './generated/schema.js';
export type {
  ErrorCode,
  FileData,
  FileInput,
  FormBody,
  ItemOf,
  JsonBody,
  KnownErrorCode,
  Operation,
  PagedPaths,
  PathParams,
  PathsFor,
  QueryParams,
  RequestOptions,
  SuccessBody,
  UploadPaths,
} from './types.js';
