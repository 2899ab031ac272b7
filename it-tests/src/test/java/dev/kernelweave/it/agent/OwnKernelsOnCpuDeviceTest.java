package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program with kernels of its own ({@link OwnKernelsProgram}), loaded as PTX, over the stand-in
 * CUDA driver without a GPU: its PTX interpreter runs them. Every result must equal the program's
 * Java reference, without the agent and with the packaged agent scheduling (same checksum).
 */
class OwnKernelsOnCpuDeviceTest {

  static final List<String> RESULTS = List.of("result reduce ok", "result histogram ok", "result stencil ok",
      "result approx ok", "result integer ok");

  @Test
  void ownKernelsGiveTheReferenceResultsWithAndWithoutTheAgent() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), StandInDriver.environment(1),
        OwnKernelsProgram.class.getName());
    assertEquals(0, plain.exitCode(), () -> "stdout:\n" + plain.stdout() + "\nstderr:\n" + plain.stderr());
    List<String> observed = plain.observable();
    assertEquals(RESULTS, observed.subList(0, RESULTS.size()), plain.stdout() + plain.stderr());
    assertTrue(observed.get(RESULTS.size()).startsWith("checksum "), plain.stdout());
    for (int seed = 1; seed <= 2; seed++) {
      // The second time from a .ptx file (cuModuleLoad) rather than a string.
      String[] args = seed == 1 ? new String[0] : new String[] {"--from-file"};
      ChildJvm.Result agent = ChildJvm.run(java, "", List.of(), StandInDriver.environment(seed),
          OwnKernelsProgram.class.getName(), args);
      assertEquals(0, agent.exitCode(), () -> "stdout:\n" + agent.stdout() + "\nstderr:\n" + agent.stderr());
      assertEquals(observed, agent.observable(), "seed " + seed + ": " + agent.stderr());
    }
  }

  @Test
  void threadsThatNeverMeetStopTheProgramInsteadOfFinishing(@TempDir Path errors) throws Exception {
    StandInDriver.assumeBuilt();
    // The stand-in aborts the process; the JVM's crash report goes to the temporary directory.
    ChildJvm.Result r = ChildJvm.runOnClassPath(ChildJvm.java(System.getProperty("java.home")),
        List.of("-XX:ErrorFile=" + errors.resolve("hs_err_%p.log")), null, ChildJvm.programClassPath(List.of()),
        StandInDriver.environment(1), OwnKernelsProgram.class.getName(), "stuck");
    assertNotEquals(0, r.exitCode(), r.stdout());
    assertFalse(r.stdout().contains("result stuck"), r.stdout());
    assertTrue(r.stderr().contains("cpu-device: kernel stuck, block (0,0,0)"), r.stderr());
    assertTrue(r.stderr().contains("deadlock: threads wait at a barrier or warp collective that others never reach"),
        r.stderr());
  }

  @Test
  void anUnsupportedInstructionFailsAtLoadNamingIt() throws Exception {
    StandInDriver.assumeBuilt();
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(),
        StandInDriver.environment(1), OwnKernelsProgram.class.getName(), "unsupported");
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(r.stdout().contains("load failed: CUDA_ERROR_NOT_SUPPORTED"), r.stdout());
    assertTrue(r.stderr().contains("PTX line 12: `tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1}]`"), r.stderr());
    assertTrue(r.stderr().contains("does not support the instruction tex"), r.stderr());
    assertFalse(r.stdout().contains("WRONG"), r.stdout());
  }
}
