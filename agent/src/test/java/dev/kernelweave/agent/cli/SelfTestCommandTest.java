package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SelfTestCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
        StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private String lastLine() {
    String[] lines = out().strip().split("\n");
    return lines[lines.length - 1];
  }

  @Test
  void simulatedRunEndsWithTheSummary() {
    assertEquals(0, run("selftest", "--sim", "--seed", "1", "--programs", "60", "--streams", "4"));
    assertEquals("60 passed, 0 failed", lastLine());
    assertTrue(out().contains("seed 1, 60 programs, 4 streams"), out());
  }

  @Test
  void helpListsEveryMutantAndARunCountsItsShapes() {
    assertEquals(0, run("selftest", "--help"));
    for (dev.kernelweave.selftest.Mutant m : dev.kernelweave.selftest.Mutant.values()) {
      if (m != dev.kernelweave.selftest.Mutant.NONE) {
        // The help wraps long descriptions: compared with runs of white space as one space.
        String help = out().replaceAll("\\s+", " ");
        assertTrue(help.contains(" " + m.option() + " ") && help.contains(m.description()), m + ":\n" + out());
      }
    }
    assertEquals(0, run("selftest", "--sim", "--seed", "1", "--programs", "30"));
    assertTrue(out().contains("shapes generated:"), out());
    for (dev.kernelweave.selftest.Shape shape : dev.kernelweave.selftest.Shape.values()) {
      assertTrue(out().contains(shape.description()), shape + ":\n" + out());
    }
  }

  @Test
  void mutantIsCaughtAndItsProgramShrunk() {
    assertEquals(1, run("selftest", "--sim", "--seed", "1", "--programs", "40", "--mutant", "drop-raw"));
    assertTrue(lastLine().matches("\\d+ passed, [1-9]\\d* failed"), lastLine());
    assertTrue(out().contains("first failing program, shrunk:"), out());
    assertTrue(out().contains("shrunk from"), out());
  }

  @Test
  void unknownMutantNamesTheFlagAndTheAcceptedValues() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--mutant", "drop-all"));
    assertTrue(err().contains("--mutant"), err());
    assertTrue(err().contains("drop-raw, drop-war, no-free-wait"), err());
  }

  @Test
  void badNumbersAreUsageErrors() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--streams", "65"));
    assertTrue(err().contains("--streams: expected 1..64"), err());
    assertEquals(Main.USAGE, run("selftest", "--sim", "--programs", "many"));
    assertTrue(err().contains("--programs: expected a whole number, got 'many'"), err());
    assertEquals(Main.USAGE, run("selftest", "--sim", "--seed"));
    assertTrue(err().contains("--seed needs a value"), err());
  }

  @Test
  void unknownOptionAndMissingModeAreUsageErrors() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--fast"));
    assertTrue(err().contains("unknown option '--fast'"), err());
    assertEquals(Main.USAGE, run("selftest", "--programs", "3"));
    assertTrue(err().contains("choose --sim"), err());
    assertEquals(Main.USAGE, run("selftest", "--sim", "--class-path", "lib/*"));
    assertTrue(err().contains("--class-path applies to --gpu only"), err());
  }

  @Test
  void gpuWithoutJCudaSaysHowToRunItInOneLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path empty) {
    assertEquals(SelfTestCommand.UNAVAILABLE, run("selftest", "--gpu", "--programs", "1", "--class-path",
        empty + java.io.File.separator + "*"));
    assertEquals(1, err().lines().count(), err());
    assertTrue(err().startsWith("kernelweave selftest --gpu: JCuda (jcuda.driver.JCudaDriver) is not on the class path"),
        err());
    assertTrue(err().contains("dev.kernelweave.agent.cli.Main selftest --gpu"), err());
  }

  @Test
  void gpuOutsideTheAgentJarSaysSoInOneLine() {
    // Here the classes come from the build's directories (the jar is packaged after the tests), and
    // JCuda is on the test class path: the programs would have no agent jar to run with.
    assertEquals(SelfTestCommand.UNAVAILABLE, run("selftest", "--gpu", "--programs", "1"));
    assertEquals(1, err().lines().count(), err());
    assertTrue(err().startsWith("kernelweave selftest --gpu: it runs from kernelweave-agent.jar"), err());
  }

  @Test
  void theMissingLibraryIsNamedFromThePlayersLine() {
    assertEquals("libcuda.so.1 not found", InterceptedSelfTest.reason("no GPU: java.lang.UnsatisfiedLinkError: "
        + "Error while loading native library \"JCudaDriver\" ... /tmp/libJCudaDriver.so: libcuda.so.1: cannot open "
        + "shared object file: No such file or directory\n"));
    assertEquals("java.lang.IllegalStateException: no CUDA device",
        InterceptedSelfTest.reason("no GPU: java.lang.IllegalStateException: no CUDA device\n"));
  }

  @Test
  void theMissingDriverIsNamedFromJCudasNestedTraces() {
    UnsatisfiedLinkError e = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver\"\n"
        + "Stack trace from the attempt to load the library as a resource:\n"
        + "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver.so: libcuda.so.1: cannot open shared object file: "
        + "No such file or directory\n\tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)");
    assertEquals("libcuda.so.1 not found", SelfTestCommand.driverProblem(e));
    assertEquals("UnsatisfiedLinkError: no JCudaDriver in java.library.path",
        SelfTestCommand.driverProblem(new UnsatisfiedLinkError("no JCudaDriver in java.library.path\nmore")));
  }
}
