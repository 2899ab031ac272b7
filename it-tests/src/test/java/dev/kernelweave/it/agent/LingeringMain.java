package dev.kernelweave.it.agent;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another program's {@code main} in a JVM that lingers before it ends: a shutdown hook
 * sleeps {@value #LINGER_MILLIS} ms, so the agent's writer has time to write every record even if
 * the agent's own shutdown work were broken. What such a run journals is what a run that exits at
 * once must journal too.
 *
 * <p>Usage: {@code LingeringMain MAIN-CLASS [ARGS...]}.
 */
public final class LingeringMain {

  static final long LINGER_MILLIS = 1500;

  private LingeringMain() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        Thread.sleep(LINGER_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "linger"));
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
  }
}
