/** The engine's name for the shared `asJson` (it lives in the shared layer, which workflows use too). */
export { asJson } from '../shared/asJson.ts';
