// Temporary: the emulator global setup (tests/setup/emulators.ts) declares these.
declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}
export {};
