/** Types of tools/table-owners.js (plain JavaScript, so eslint.config.js can load it). */
export declare const SERVED_INFRASTRUCTURE: Record<string, readonly string[]>;
export declare function tableOwners(): { modules: Record<string, string[]>; infrastructure: string[] };
export declare function foreignTables(moduleName: string): string[];
export declare const TABLE_CALLS: readonly string[];
