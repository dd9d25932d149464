// Multipart upload operations in the OpenAPI document (issue 12): each declares its multipart/form-data
// requestBody so /docs shows a file picker and generated clients type it. Owned by the typed-client work:
// SCAFFOLD, to be built.

/** Called on the finished document (swagger `transformObject`); returns it with the upload bodies declared. */
export function withMultipartBodies<T>(document: T): T {
  return document;
}
