package dev.kernelweave.agent;

import java.lang.reflect.Method;

/**
 * Runs the agent's exit work after every application shutdown hook has finished, so that the calls
 * a program makes in its own hooks are scheduled and journaled too.
 *
 * <p>{@code Runtime.addShutdownHook} hooks run concurrently, so an ordinary hook of the agent's
 * would close the journal while the application's hooks still make calls. The JDK runs its own
 * system hooks one slot after another, the application's hooks (all of them, joined) in slot 1 and
 * the delete-on-exit files in slot 2; the agent takes a free slot after those ({@code
 * java.lang.Shutdown.add}, reached through the package the agent opens when JCuda loads). Where
 * that is not possible (another JDK), {@link #registered} stays false and the agent falls back to an
 * ordinary hook.
 *
 * <p>One per agent start, held by its premain. Thread-safe; registers at most once.
 */
final class ExitHook {

  /** The JDK's slots: 0 console, 1 application hooks, 2 delete-on-exit; 3 to 9 are free. */
  private static final int FIRST_FREE_SLOT = 3;
  private static final int LAST_SLOT = 9;

  private volatile boolean registered;

  /** Whether the exit work runs after the application's hooks. */
  boolean registered() {
    return registered;
  }

  /**
   * Registers {@code work} in the highest free system slot, once. Needs {@code java.lang} opened to
   * this class's module. Never throws.
   *
   * @return whether it is (now or already) registered
   */
  synchronized boolean registerAfterApplicationHooks(Runnable work) {
    if (registered) {
      return true;
    }
    try {
      Method add = Class.forName("java.lang.Shutdown").getDeclaredMethod("add", int.class, boolean.class,
          Runnable.class);
      add.setAccessible(true);
      for (int slot = LAST_SLOT; slot >= FIRST_FREE_SLOT; slot--) {
        try {
          add.invoke(null, slot, false, work);
          registered = true;
          return true;
        } catch (java.lang.reflect.InvocationTargetException taken) {
          if (taken.getCause() instanceof IllegalStateException) {
            return false; // the JVM is already exiting
          }
          // InternalError: another agent holds the slot; try the next one.
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Another JDK, or the package is not open: the ordinary hook does the work.
    }
    return false;
  }
}
