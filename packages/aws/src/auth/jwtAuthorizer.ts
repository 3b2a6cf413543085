import type {
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import { bearerToken, createTokenVerifier } from './createTokenVerifier.ts';
import type { JwtAuthOptions, JwtIdentity } from './JwtAuthOptions.ts';

/** The context an authorized request carries to the ingress. */
export interface JwtAuthorizerContext<Identity> {
  readonly identity: Identity;
  /**
   * When the token ends (its `exp` plus `graceSeconds`, in epoch ms), if it says: the ingress
   * refuses a request past it (401), also one API Gateway let through from its cache of this
   * authorizer's results (`resultsCacheTtl`, 5 minutes by default), which may outlive the token.
   */
  readonly validUntil?: number;
}

/**
 * A Lambda authorizer for the HTTP ingress on an API Gateway HTTP API (payload 2.0, simple
 * responses): it verifies the `Authorization: Bearer <jwt>` header as {@link jwtAuth} does and
 * passes the caller's identity on, which the ingress finds in
 * `event.requestContext.authorizer.lambda.identity`, with the token's end (`validUntil`): API
 * Gateway may answer a request from its cache of this authorizer's results after the token
 * expired, and the ingress then refuses it. Deploy it with the CDK construct's
 * `ingressAuth: { authorizer: new HttpLambdaAuthorizer('Jwt', fn, { responseTypes: [HttpLambdaResponseType.SIMPLE] }) }`.
 * A refused request gets API Gateway's 403 `{"message":"Forbidden"}`, nothing more.
 *
 * @example
 * // authorizer.ts, bundled into a function of its own
 * import { jwtAuthorizer } from '@baton/aws/auth';
 * export const handler = jwtAuthorizer({ issuer: 'https://login.example.com/', audience: 'bank' });
 */
export function jwtAuthorizer<Identity = JwtIdentity>(
  options: JwtAuthOptions<Identity>,
): (
  event: APIGatewayRequestAuthorizerEventV2,
) => Promise<
  | APIGatewaySimpleAuthorizerResult
  | APIGatewaySimpleAuthorizerWithContextResult<JwtAuthorizerContext<Identity>>
> {
  const verify = createTokenVerifier(options);
  return async (event) => {
    try {
      let validUntil: number | undefined;
      const identity = await verify(bearerToken(event.headers?.authorization), (epochMs) => {
        validUntil = epochMs;
      });
      const context = validUntil === undefined ? { identity } : { identity, validUntil };
      return { isAuthorized: true, context };
    } catch {
      return { isAuthorized: false };
    }
  };
}
