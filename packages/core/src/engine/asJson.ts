/** The engine's names for the shared `asJson` and kin (in the shared layer, which workflows use too). */
export { asJson, asStrictJson, findCollection } from '../shared/asJson.ts';
