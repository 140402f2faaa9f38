/**
 * Handlers modules declare under names (reactions by the fact, gates by the check point), kept in
 * module order with the module that declared each: what reactions and gates are both built on.
 */
export interface DeclaredHandlers<H> {
  add(owner: string, handlers: Readonly<Record<string, H | undefined>>): void;
  of(name: string): readonly H[];
  owners(name: string): readonly string[];
}

export function createDeclaredHandlers<H>(): DeclaredHandlers<H> {
  const byName = new Map<string, { owner: string; handler: H }[]>();
  return {
    add(owner, handlers) {
      for (const [name, handler] of Object.entries(handlers)) {
        if (handler) byName.set(name, [...(byName.get(name) ?? []), { owner, handler }]);
      }
    },
    of: (name) => (byName.get(name) ?? []).map((entry) => entry.handler),
    owners: (name) => (byName.get(name) ?? []).map((entry) => entry.owner),
  };
}
