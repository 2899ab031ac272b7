package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Kernels with bad addresses over the stand-in driver ({@link FaultingKernelsProgram}): as on a GPU,
 * the launch succeeds, the next synchronizing call returns CUDA_ERROR_ILLEGAL_ADDRESS, and so does
 * every later call (the error is sticky); the JVM lives on. Legitimate accesses near an
 * allocation's end, into a module variable and into shared memory do not fault.
 */
class FaultingKernelsOnCpuDeviceTest {

  static final String ILLEGAL = "CUDA_ERROR_ILLEGAL_ADDRESS";

  @Test
  void aStoreFarPastTheEndIsAStickyIllegalAddress() throws Exception {
    ChildJvm.Result r = run("past-end");
    assertEquals(List.of("launch: CUDA_SUCCESS", "stream synchronize: " + ILLEGAL, "copy to host: " + ILLEGAL,
        "allocation: " + ILLEGAL, "later launch: " + ILLEGAL, "later synchronize: " + ILLEGAL, "survived"),
        r.stdout().lines().toList(), r.stderr());
    assertTrue(r.stderr().contains("cpu-device: kernel write_past_end, block (0,0,0), thread (0,0,0)"), r.stderr());
    assertTrue(r.stderr().contains("illegal address: 4 bytes at address 0x"), r.stderr());
  }

  @Test
  void aReadOfFreedMemoryIsAStickyIllegalAddress() throws Exception {
    ChildJvm.Result r = run("freed");
    assertEquals(List.of("launch: CUDA_SUCCESS", "context synchronize: " + ILLEGAL, "copy to host: " + ILLEGAL,
        "allocation: " + ILLEGAL, "later launch: " + ILLEGAL, "later synchronize: " + ILLEGAL, "survived"),
        r.stdout().lines().toList(), r.stderr());
    assertTrue(r.stderr().contains("cpu-device: kernel read_into, block (0,0,0), thread (0,0,0)"), r.stderr());
  }

  @Test
  void accessesInsideAllocationsVariablesAndSharedMemoryDoNotFault() throws Exception {
    ChildJvm.Result r = run("legit");
    assertEquals(List.of("launch: CUDA_SUCCESS", "context synchronize: CUDA_SUCCESS", "result legit ok", "survived"),
        r.stdout().lines().toList(), r.stderr());
    assertTrue(!r.stderr().contains("illegal address"), r.stderr());
  }

  static ChildJvm.Result run(String scenario) throws Exception {
    StandInDriver.assumeBuilt();
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(),
        StandInDriver.environment(1), FaultingKernelsProgram.class.getName(), scenario);
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    return r;
  }
}
