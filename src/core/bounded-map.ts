// The one eviction rule of the in-process caches (statements, pages, kept answers, signed links): a bounded Map
// whose oldest entry goes when a new key would exceed the bound. Replacing a key keeps its place.

/** Sets `key` in `map`, first dropping the oldest entry when `key` is new and the map is full. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, maxEntries: number): void {
  if (!map.has(key) && map.size >= maxEntries) map.delete(map.keys().next().value!);
  map.set(key, value);
}
