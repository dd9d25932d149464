// The Hytale server plugin manifest (manifest.json at the archive root). Documented keys: Group, Name, Version,
// Description, Main, Authors ([{Name, Email, Url}]), Website, ServerVersion, Dependencies and
// OptionalDependencies (maps of "Group:Name" to a version range), LoadBefore, DisabledByDefault,
// IncludesAssetPack. Keys are read case-insensitively; an absent or malformed key is ignored. The manifest is
// valid when it is a JSON object with a non-empty Name: without one, nothing identifies the plugin.
import type { ManifestView } from './inspection.schemas.js';

/** Longest manifest read, compressed or not; larger is MANIFEST_INVALID. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
// Bounds on what is kept, so a large manifest cannot bloat every file object that shows it.
const MAX_TEXT = 200;
const MAX_DESCRIPTION = 2000;
const MAX_AUTHORS = 50;
const MAX_DEPENDENCIES = 200;

type Json = unknown;

function lowerKeys(value: Json): Map<string, Json> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = new Map<string, Json>();
  for (const [key, item] of Object.entries(value as Record<string, Json>)) {
    // The first spelling wins, as in a case-insensitive reader that stops at the first match.
    if (!keys.has(key.toLowerCase())) keys.set(key.toLowerCase(), item);
  }
  return keys;
}

function text(value: Json, max = MAX_TEXT): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed.slice(0, max);
}

function authorsOf(value: Json): string[] {
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const author of value) {
    // Objects per the documented format; plain strings are accepted too.
    const name = typeof author === 'string' ? text(author) : text(lowerKeys(author)?.get('name'));
    if (name !== null && names.length < MAX_AUTHORS) names.push(name);
  }
  return names;
}

function dependenciesOf(value: Json, optional: boolean): ManifestView['dependencies'] {
  const map = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  if (map === null) return [];
  return Object.entries(map as Record<string, Json>)
    .map(([name, range]) => ({ name: name.trim().slice(0, MAX_TEXT), versionRange: text(range), optional }))
    .filter((dependency) => dependency.name !== '');
}

/** The manifest's text to its view, or null when it is not a valid manifest (MANIFEST_INVALID). */
export function parseManifest(bytes: Buffer): ManifestView | null {
  let parsed: Json;
  try {
    parsed = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  const keys = lowerKeys(parsed);
  const name = text(keys?.get('name'));
  if (keys === null || name === null) return null;
  return {
    name,
    version: text(keys.get('version')),
    group: text(keys.get('group')),
    description: text(keys.get('description'), MAX_DESCRIPTION),
    authors: authorsOf(keys.get('authors')),
    dependencies: [
      ...dependenciesOf(keys.get('dependencies'), false),
      ...dependenciesOf(keys.get('optionaldependencies'), true),
    ].slice(0, MAX_DEPENDENCIES),
    serverVersion: text(keys.get('serverversion')),
  };
}
