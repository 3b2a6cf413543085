/** Who a signed-in bank user is: `ctx.caller.identity` in handlers and queries. */
import * as z from 'zod';

export const BankUser = z.object({
  userId: z.string().regex(/^[a-z][a-z0-9-]{0,30}$/),
  role: z.enum(['customer', 'admin']),
});
export type BankUser = z.infer<typeof BankUser>;
