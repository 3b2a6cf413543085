/**
 * What Baton takes as a schema: a zod 4 schema, classic (`zod`) or mini (`zod/mini`, whose
 * functions tree-shake, for smaller Lambda bundles). Baton parses with its `safeParse` and infers
 * types with `z.input` / `z.output`; it imports nothing of zod at run time.
 */
import type * as z from 'zod';
import type { ZodMiniType } from 'zod/mini';

export type Schema = z.ZodType | ZodMiniType;
