/**
 * The AWS SDK's own switch for its Node.js version notice (`NodeVersionSupportWarning`, nine lines
 * on stderr from the first client made on Node 20).
 */
export const SDK_NODE_WARNING_OFF = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * Turns the AWS SDK's Node.js version notice off for this process, unless the environment says
 * otherwise already: an operating command's output is what the operator reads in an incident, and
 * the notice is about the SDK's future releases, not the command.
 */
export function quietSdkNodeWarning(env: Record<string, string | undefined> = process.env): void {
  env[SDK_NODE_WARNING_OFF] ??= 'true';
}
