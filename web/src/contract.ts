/** Values of the contract the page needs (see contract.config.ts, filled in at build). */

export interface OptionSchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  description?: string;
}

export interface Contract {
  /** Longest player name. */
  nameMaxLength: number;
  /** The server's bot strategies. */
  bots: string[];
  /** The expert's levels: number (as a string) → name ("beginner" … "master"). */
  levels: Record<string, string>;
  /** Each option's schema, when the contract types the options. */
  options: Record<string, OptionSchema>;
}

declare const __CONTRACT__: Contract;

export const contract: Contract = __CONTRACT__;
