/**
 * `@baton/aws/auth`: JWT verification for the doors of an app on AWS — the app's `auth` hook
 * on WebSocket `$connect` ({@link jwtAuth}) and a Lambda authorizer for the HTTP ingress
 * ({@link jwtAuthorizer}) — for any OIDC issuer or a Cognito user pool, with aws-jwt-verify
 * (an optional peer dependency: install it beside `@baton/aws`).
 */
export type {
  CognitoIssuer,
  JwtAuthOptions,
  JwtClaims,
  JwtIdentity,
  OidcIssuer,
} from './JwtAuthOptions.ts';
export { type JwtAuthHook, jwtAuth } from './jwtAuth.ts';
export { type JwtAuthorizerContext, jwtAuthorizer } from './jwtAuthorizer.ts';
