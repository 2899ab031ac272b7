package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hand-over from calls made as written to calls the agent schedules ({@code engage=N}), on the
 * stand-in driver: wherever in a program the agent engages (in its set-up, in its first repetition,
 * mid-way), on one thread or several, the program's bytes are those it gives without the agent.
 * The stand-in orders queued work at random within what the calls' semantics allow, so work made
 * as written and left incomplete at the hand-over would be overtaken by the agent's streams.
 */
class EngagementOnCpuDeviceTest {

  static Stream<Arguments> programsAndEngagements() {
    return Stream.of("jacobi", "two-threads", "tenants", "branches", "heads")
        .flatMap(p -> Stream.of(1, 9, 25).map(n -> Arguments.of(p, n)));
  }

  @ParameterizedTest(name = "{0}, engaged at call {1}")
  @MethodSource("programsAndEngagements")
  void theProgramGivesItsOwnBytesWhereverTheAgentEngages(String program, int engageAt) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {program, "--size", "check", "--warmup", "1", "--reps", "2"};
    ChildJvm.Result plain =
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(engageAt), "dev.kernelweave.kernels.WorkloadMain", args);
    String expected = StandInDriver.checksum(plain);

    ChildJvm.Result agent = ChildJvm.run(java, "journal=off,log=debug,engage=" + engageAt, List.of(),
        StandInDriver.environment(engageAt + 100), "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(expected, StandInDriver.checksum(agent), "engaged at call " + engageAt + ": " + agent.stderr());
    assertTrue(agent.stderr().contains("scheduling from now on"),
        "the agent should have engaged within the program: " + agent.stderr());
  }
}
