/** What `baton dev` asks of an app's entry module (its build and its app process both say it). */
export const DEFAULT_EXPORT =
  'the entry must end with export default defineApp({ actors, queries }) (defineApp from @baton/core)';
