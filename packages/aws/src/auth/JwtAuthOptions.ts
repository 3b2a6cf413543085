import type { Jwks } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

/**
 * Who a verified token names: its subject and its groups (Cognito's `cognito:groups`, or the
 * claim `groupsClaim` names).
 *
 * @example
 * const isAdmin = (identity: JwtIdentity) => identity.groups.includes('admin');
 */
export interface JwtIdentity {
  readonly sub: string;
  readonly groups: readonly string[];
}

/** The claims of a verified token, as `identity` receives them. */
export type JwtClaims = JwtPayload;

/** Any OIDC issuer: its `iss`, the audiences accepted, where its keys are published. */
export interface OidcIssuer {
  /** The token's `iss` claim, exactly (e.g. `https://login.example.com/`). */
  readonly issuer: string;
  /** The `aud` values accepted: the token must name at least one. */
  readonly audience: string | readonly string[];
  /** Where the issuer publishes its keys. @default `<issuer>/.well-known/jwks.json` */
  readonly jwksUri?: string;
}

/** A Cognito user pool: tokens of its app clients, of one use. */
export interface CognitoIssuer {
  readonly cognito: {
    readonly userPoolId: string;
    /** The app client ids accepted (`aud` of id tokens, `client_id` of access tokens). */
    readonly clientId: string | readonly string[];
    readonly tokenUse: 'id' | 'access';
  };
}

/**
 * Options of {@link jwtAuth} and {@link jwtAuthorizer}: the issuer (any OIDC issuer, or a
 * Cognito user pool), and what to make of a verified token.
 *
 * @example
 * const options: JwtAuthOptions = {
 *   issuer: 'https://login.example.com/',
 *   audience: 'bank',
 * };
 */
export type JwtAuthOptions<Identity = JwtIdentity> = (OidcIssuer | CognitoIssuer) & {
  /**
   * The issuer's keys, known in advance (loaded into the verifier's cache). Keys it does not
   * hold are still fetched from the JWKS URI, once per key id.
   * @default fetched from the JWKS URI on first use, then cached
   */
  readonly jwks?: Jwks;
  /** The `scope` values of which a token must hold at least one. @default not checked */
  readonly scope?: string | readonly string[];
  /** The claim that lists the caller's groups. @default `cognito:groups` for Cognito, else `groups` */
  readonly groupsClaim?: string;
  /** Seconds of clock skew allowed on `exp` and `nbf`. @default 0 */
  readonly graceSeconds?: number;
  /**
   * What handlers and queries see of the caller, from the verified claims. It is also the scope
   * of the caller's idempotency keys and of its connection cap (`maxConnectionsPerUser`): keep
   * out claims that change with each token (`iat`, `exp`, `jti`), or a send retried after a token
   * refresh is a new message and each token has a cap of its own. The default keeps `groups`,
   * which change when a user's groups do: a send retried across such a change (with a token
   * issued after it) is a new message too. Where that matters more than reading groups in
   * `ctx.identity`, keep the subject alone: `identity: ({ sub }) => ({ sub })`.
   * @default `{ sub, groups }` ({@link JwtIdentity})
   */
  readonly identity?: (claims: JwtClaims) => Identity;
  /**
   * Told why a token was refused (expired, wrong issuer, bad signature…), for the server's logs:
   * the client learns only "unauthorized".
   * @default nothing
   */
  readonly onRefused?: (reason: Error) => void;
};
