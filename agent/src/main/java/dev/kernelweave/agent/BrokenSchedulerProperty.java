package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.scheduler.OrderingRules;
import dev.kernelweave.selftest.Mutant;

/**
 * The orderings the agent keeps: CUDA's, unless {@code -Ddev.kernelweave.mutant=NAME} asks for a
 * deliberately broken scheduler, which the fuzz that plays programs through the whole agent must
 * catch. Never for a real run, and said so on stderr. Read once, at start; the mutant becomes the
 * {@link OrderingRules} of the interceptor's settings, so the interceptor never names one.
 */
final class BrokenSchedulerProperty {

  private BrokenSchedulerProperty() {}

  /**
   * {@link OrderingRules#CUDA} when the property is unset; else the named mutant's rules. Loads
   * nothing of the self-test module when it is unset ({@link Mutant#PROPERTY} is a constant).
   */
  static OrderingRules orderingRules() {
    String name = System.getProperty(Mutant.PROPERTY);
    if (name == null || name.isEmpty()) {
      return OrderingRules.CUDA;
    }
    Mutant m = Mutant.ofSystemProperty();
    if (m != Mutant.NONE) {
      AgentLog.warnOnce("mutant", Mutant.PROPERTY + "=" + name + ": the scheduler is deliberately broken ("
          + m.description() + "), for testing the fuzz; results may be wrong");
    } else if (!name.equals(Mutant.NONE.option())) {
      AgentLog.warnOnce("mutant", Mutant.PROPERTY + " ignored: unknown mutant '" + name + "': expected one of "
          + Mutant.names());
    }
    return m.rules();
  }
}
