// Storage failures, counted per operation by a decorator around whichever driver is configured, so neither
// driver knows about metrics. Every method of the Storage interface is wrapped, including ones added later:
// a rejected promise or a thrown error counts once under the method's name. A missing object is an answer
// (undefined), not a failure; an error while a body streams to the client happens after get() resolved and is
// not counted here.
import type { Counter } from 'prom-client';
import type { Storage } from '../storage/storage.js';

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

export function instrumentStorage(storage: Storage, failures: Counter<'operation'>): Storage {
  const wrappers = new Map<PropertyKey, unknown>();
  const counted =
    (operation: string, method: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      try {
        const result = method.apply(storage, args);
        if (!isPromise(result)) return result;
        return result.catch((error: unknown) => {
          failures.inc({ operation });
          throw error;
        });
      } catch (error) {
        failures.inc({ operation });
        throw error;
      }
    };
  return new Proxy(storage, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrappers.get(property);
      if (wrapper === undefined) {
        wrapper = counted(property, value as (...args: unknown[]) => unknown);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
