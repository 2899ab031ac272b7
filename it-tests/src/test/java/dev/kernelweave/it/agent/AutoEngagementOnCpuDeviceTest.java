package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engage=auto}, the default, on the stand-in driver: the agent starts scheduling where the
 * program shows that it pays, by a run of launches in a row or by being long, starts its
 * JIT warm-up only then, and otherwise leaves the program as written, saying so where a journal was
 * asked for. Whichever way, the program's output is its own.
 */
class AutoEngagementOnCpuDeviceTest {

  private static final Pattern JOURNALED_LAUNCHES = Pattern.compile("(?m)^\\s+launch\\s+\\d+$");

  @TempDir Path temp;

  @Test
  void aProgramWithFewLaunchesBetweenReadBacksRunsAsWrittenAndSaysSo() throws Exception {
    ChildJvm.Result agent = workload(temp.resolve("jacobi"), "jacobi", "--size", "check", "--warmup", "1", "--reps", "2");
    assertTrue(agent.stderr().contains("the agent did not engage: the program's "), agent.stderr());
    assertFalse(agent.stderr().contains("scheduling from now on"), agent.stderr());
    assertFalse(agent.stderr().contains("warm-up started"), "no warm-up beside a program run as written: " + agent.stderr());
    assertFalse(agent.stderr().contains("priming"), "no priming beside a program of a few hundred calls: " + agent.stderr());
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", temp.resolve("jacobi").toString());
    assertEquals(0, stats.exitCode(), stats.stderr());
    assertFalse(JOURNALED_LAUNCHES.matcher(stats.stdout()).find(), "no launch journaled: " + stats.stdout());
    assertTrue(stats.stdout().contains("the agent never engaged: the program's "), "the journal says why: " + stats.stdout());
  }

  @Test
  void aRunOfLaunchesInARowEngagesTheAgentThenTheWarmUp() throws Exception {
    // dynamic: a router, a read-back of its scores, then 16 expert kernels and a combine.
    ChildJvm.Result agent = workload(temp.resolve("dynamic"), "dynamic", "--size", "check", "--warmup", "1", "--reps", "2");
    String err = agent.stderr();
    int engaged = err.indexOf("scheduling from now on (16 launches in a row)");
    assertTrue(engaged >= 0, err);
    assertTrue(err.indexOf("warm-up started") > engaged, "the warm-up starts at the engagement: " + err);
    assertFalse(err.contains("did not engage"), err);
    ChildJvm.Result stats = ChildJvm.command("inspect", "stats", temp.resolve("dynamic").toString());
    assertTrue(JOURNALED_LAUNCHES.matcher(stats.stdout()).find(), "launches journaled once engaged: " + stats.stdout());
    assertTrue(stats.stdout().contains(" calls made as written, not in the journal (16 launches in a row)"),
        stats.stdout());
  }

  @Test
  void launchesBetweenCopiesAreNoRunThatEngagesTheAgent() throws Exception {
    // pipeline-async: 16 batches of an asynchronous copy in, 3 kernels and a copy out, then one wait:
    // 48 launches without a host wait, but never more than 3 in a row, and each copy ends a window.
    ChildJvm.Result agent = workload(temp.resolve("pipeline-async"), "pipeline-async", "--size", "bench", "--warmup", "0", "--reps", "1");
    assertTrue(agent.stderr().contains("the agent did not engage: the program's "), agent.stderr());
    assertFalse(agent.stderr().contains("scheduling from now on"), agent.stderr());
  }

  @Test
  void aLongProgramEngagesTheAgentAfterTenThousandCallsMadeAsWrittenWithoutAWarmUp() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    // 3 calls a round: 12,000 calls, the last 2,000 of them tracked.
    String[] args = {"read-back-loop", "4000"};
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), StandInDriver.environment(5), JournalProgram.class.getName(), args);
    assertEquals(0, plain.exitCode(), plain.stderr());
    ChildJvm.Result agent = ChildJvm.run(java, "engage=auto,journal=off,log=debug,warmup=200", List.of(),
        StandInDriver.environment(6), JournalProgram.class.getName(), args);
    assertEquals(0, agent.exitCode(), agent.stderr());
    assertEquals(plain.stdout(), agent.stdout());
    assertTrue(agent.stderr().contains("scheduling from now on (a long program: 10000 calls made as written)"), agent.stderr());
    // Its own calls compile the tracked path; a warm-up thread would only compete with its steady state.
    assertFalse(agent.stderr().contains("warm-up started"), agent.stderr());
    // But its first tracked calls find the path's classes loaded and its call sites linked.
    assertTrue(agent.stderr().contains("priming the scheduled path: 2 self-test programs in "), agent.stderr());
  }

  @Test
  void aPoolOfThreadsLaunchingAtOnceRunsAsWrittenPastTheCountUnlessItHasPriority() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    // 8 threads serving requests through one context, a few launches between copies each: about
    // 11,300 calls, none in a run of 16 launches. The program checks every round against the CPU.
    String[] args = {"--workers", "8", "--requests", "8", "--rounds", "22", "--warmup-rounds", "0"};
    String main = "dev.kernelweave.kernels.TenantsServiceMain";
    ChildJvm.Result pool = ChildJvm.run(java, "engage=auto,journal=off,log=debug,warmup=0", List.of(), StandInDriver.environment(7),
        main, args);
    assertEquals(0, pool.exitCode(), pool.stdout() + pool.stderr());
    assertTrue(pool.stdout().contains("outputs equal the CPU reference"), pool.stdout());
    assertTrue(Pattern.compile("not scheduling yet: \\d+ of the last 2048 calls made as written began while another"
        + " thread queued work").matcher(pool.stderr()).find(), pool.stderr());
    assertFalse(pool.stderr().contains("scheduling from now on"), pool.stderr());
    assertTrue(pool.stderr().contains("the agent did not engage (") && pool.stderr().contains("queued work"), pool.stderr());

    // With the hand-back on as well: the pool is not engaged to be handed back later.
    ChildJvm.Result kept = ChildJvm.run(java, "engage=auto,journal=off,log=debug,warmup=0,handback=on", List.of(),
        StandInDriver.environment(8), main, args);
    assertEquals(0, kept.exitCode(), kept.stdout() + kept.stderr());
    assertTrue(kept.stdout().contains("outputs equal the CPU reference"), kept.stdout());
    assertTrue(kept.stderr().contains("not scheduling yet"), kept.stderr());
    assertFalse(kept.stderr().contains("scheduling from now on"), kept.stderr());

    // Threads of a priority class are scheduled whatever their overlap: only the agent serves it.
    ChildJvm.Result urgent = ChildJvm.run(java, "engage=auto,journal=off,log=debug,warmup=0,priority=high:tenant-*",
        List.of(), StandInDriver.environment(9), main, args);
    assertEquals(0, urgent.exitCode(), urgent.stdout() + urgent.stderr());
    assertTrue(urgent.stdout().contains("outputs equal the CPU reference"), urgent.stdout());
    assertTrue(urgent.stderr().contains("scheduling from now on (a long program: 10000 calls made as written)"),
        urgent.stderr());
    assertFalse(urgent.stderr().contains("not scheduling yet"), urgent.stderr());
  }

  /**
   * Runs {@code WorkloadMain} with {@code args} without the agent and with {@code engage=auto}; the
   * run with it, whose checksum must be the same.
   */
  private static ChildJvm.Result workload(Path journal, String... args) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result plain =
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(3), "dev.kernelweave.kernels.WorkloadMain", args);
    ChildJvm.Result agent = ChildJvm.run(java, "engage=auto,log=debug,warmup=200,journal=" + journal, List.of(),
        StandInDriver.environment(4), "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(StandInDriver.checksum(plain), StandInDriver.checksum(agent), agent.stderr());
    return agent;
  }
}
