import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled when its route first
 * answers with that status instead of when the app starts. Compiling all of them up front is most
 * of a start's CPU (about two seconds for the whole API, every process and every test app), and a
 * process serves only some routes; a route's first answer pays a few milliseconds instead.
 */
export function lazySerializerFactory(): SerializerFactory {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
