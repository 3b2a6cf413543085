/** The part of the Lambda context Baton's handlers read: how long the invocation has left. */
export interface LambdaInvocation {
  getRemainingTimeInMillis(): number;
}
