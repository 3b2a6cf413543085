/** The app as a deployment takes it: the default export of `defineApp`. */
import { defineApp } from '@baton/core';
import { Account, total } from './bank.js';

export default defineApp({ actors: [Account], queries: [total] });
