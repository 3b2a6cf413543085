/**
 * The order-fulfilment shop as one app: what `baton dev` serves (with the page in web/) and what
 * a deployment bundles. Orders are `Fulfil` workflow instances, one per order id.
 */
import { defineApp } from '@baton/core';
import { Fulfil } from './fulfil.ts';
import { Inventory, OrderBook, orderList, stockLevels } from './inventory.ts';

export default defineApp({
  actors: [Inventory, OrderBook],
  workflows: [Fulfil],
  queries: [stockLevels, orderList],
});
