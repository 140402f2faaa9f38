/**
 * How a route's response schema is written in the OpenAPI document. Responses that may be one of
 * several shapes (a transaction or a card transaction, an approved or a declined simulation) are
 * validated with if/then/else chains, which pick the branch by a property and so report the errors
 * of the right shape. Generators and readers of the document (openapi-typescript, the reference page)
 * do not understand if/then/else and would type such an answer `unknown`; in the document a chain is
 * therefore written as the `oneOf` of its branches. The route's own schema, which validates and
 * serializes, is not changed.
 */
type Json = unknown;

interface Conditional {
  if: Json;
  then: Json;
  else: Json;
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A node that is nothing but an if/then/else: the chains built to choose a response's shape. */
function isChoice(node: Record<string, Json>): node is Record<string, Json> & Conditional {
  const keys = Object.keys(node);
  return keys.length === 3 && 'if' in node && 'then' in node && 'else' in node;
}

/** The shapes a chain chooses between, in order: each `then`, and the last `else`. */
function branches(node: Json): Json[] {
  if (isObject(node) && isChoice(node)) return [node.then, ...branches(node.else)];
  return [node];
}

function documented(node: Json): Json {
  if (Array.isArray(node)) return node.map(documented);
  if (!isObject(node)) return node;
  if (isChoice(node)) return { oneOf: branches(node).map(documented) };
  const copy: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = documented(value);
  return copy;
}

/** A route schema as the document shows it: its responses' if/then/else chains become `oneOf`s. */
export function documentedRouteSchema<S extends { response?: unknown }>(schema: S): S {
  if (!isObject(schema.response)) return schema;
  return { ...schema, response: documented(schema.response) };
}
