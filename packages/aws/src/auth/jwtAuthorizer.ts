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
}

/**
 * A Lambda authorizer for the HTTP ingress on an API Gateway HTTP API (payload 2.0, simple
 * responses): it verifies the `Authorization: Bearer <jwt>` header as {@link jwtAuth} does and
 * passes the caller's identity on, which the ingress finds in
 * `event.requestContext.authorizer.lambda.identity`. Deploy it with the CDK construct's
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
      const identity = await verify(bearerToken(event.headers?.authorization));
      return { isAuthorized: true, context: { identity } };
    } catch {
      return { isAuthorized: false };
    }
  };
}
