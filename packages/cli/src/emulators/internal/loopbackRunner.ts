import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The main class that starts DynamoDB Local bound to one address (see {@link writeLoopbackRunner}). */
export const LOOPBACK_RUNNER_CLASS = 'LoopbackServerRunner';

/**
 * DynamoDB Local's own `ServerRunner`, bound to one address. Its command line has no flag for
 * that, and its Jetty server listens on every interface of the machine: anyone on the network
 * could read and write the tables. This sets the host of the server's connector before it starts.
 * The first argument is the address; the rest are DynamoDB Local's (`-port`, `-inMemory`, …).
 */
const SOURCE = `import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class ${LOOPBACK_RUNNER_CLASS} {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy =
        ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
      ((ServerConnector) connector).setHost(args[0]);
    }
    proxy.start();
  }
}
`;

/**
 * Writes the runner's source into `dir` (once) and returns its path: Java (11+) runs a
 * single source file directly, compiling it in memory against the class path.
 *
 * @example
 * const runner = await writeLoopbackRunner(dir);
 * spawn(java, ['-cp', join(dir, 'lib', '*'), runner, '127.0.0.1', '-inMemory', '-port', '8000']);
 */
export async function writeLoopbackRunner(dir: string): Promise<string> {
  const path = join(dir, `${LOOPBACK_RUNNER_CLASS}.java`);
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current !== SOURCE) await writeFile(path, SOURCE);
  return path;
}
