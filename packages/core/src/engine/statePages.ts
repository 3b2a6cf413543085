/** When a store may forget a state page (contextSlots.ts): never (the instance's record says which pages it holds). */
export const PAGE_EXPIRES_AT = Number.MAX_SAFE_INTEGER;
