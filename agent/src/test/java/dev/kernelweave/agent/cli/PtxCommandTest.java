package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PtxCommandTest {

  private static final String MODULE = """
      .version 8.5
      .target sm_75
      .address_size 64

      .global .align 4 .u32 hits;

      .visible .entry copy(.param .u64 copy_p0, .param .u64 copy_p1, .param .u32 copy_p2)
      {
      .reg .b64 %rd<3>; .reg .f32 %f1;
      ld.param.u64 %rd1, [copy_p0];
      ld.param.u64 %rd2, [copy_p1];
      ld.global.f32 %f1, [%rd1];
      st.global.f32 [%rd2], %f1;
      ret;
      }

      .visible .entry count(.param .align 8 .b8 count_s[16])
      {
      .reg .b64 %rd1; .reg .b32 %r1;
      ld.param.u64 %rd1, [count_s+8];
      atom.global.add.u32 %r1, [%rd1], 1;
      red.global.add.u32 [hits], 1;
      ret;
      }

      .visible .entry idle()
      {
      ret;
      }
      """;

  @TempDir Path dir;

  private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
  private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
  private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

  private String out() {
    return outBytes.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return errBytes.toString(StandardCharsets.UTF_8);
  }

  private Path write(String name, byte[] content) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, content);
    return file;
  }

  private Path module() throws IOException {
    return write("module.ptx", MODULE.getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void printsOneLinePerKernelNameTabThenTokensWithExtentsThenVariables() throws IOException {
    int code = PtxCommand.run(new String[] {module().toString()}, out, err);
    assertEquals(0, code, err());
    // copy touches one float at each pointer; count's pointer comes from the middle of a struct.
    // After a second tab, whether it merges: count writes a module variable its instances would share.
    assertEquals("copy\tR[0,4) W[0,4) V\tmergeable\ncount\tRW hits:RW\tnot mergeable: writes module variable hits\n"
        + "idle\t\tmergeable\n",
        out().replace(System.lineSeparator(), "\n"));
    assertEquals("", err());
  }

  @Test
  void isReachedFromMain() throws IOException {
    int code = Main.run(new String[] {"ptx", module().toString()}, out, err);
    assertEquals(0, code, err());
    assertTrue(out().startsWith("copy\tR[0,4) W[0,4) V"), out());
  }

  @Test
  void jsonFlagPrintsAnArrayWithParameterSizes() throws IOException {
    int code = PtxCommand.run(new String[] {"--json", module().toString()}, out, err);
    assertEquals(0, code, err());
    String json = out();
    assertTrue(json.startsWith("[\n  {\"name\":\"copy\",\"parameters\":"
        + "[{\"use\":\"R\",\"bytes\":8,\"extent\":{\"start\":0,\"end\":4}},"), json);
    assertTrue(json.contains("{\"name\":\"count\",\"parameters\":[{\"use\":\"RW\",\"bytes\":16}],"
        + "\"moduleVariables\":[{\"name\":\"hits\",\"use\":\"RW\"}],\"anyModuleVariable\":\"V\","
        + "\"otherMemory\":false,\"prints\":false,\"mergeable\":false,"
        + "\"notMergeable\":\"writes module variable hits\"}"), json);
    assertTrue(json.contains("{\"name\":\"idle\",\"parameters\":[],\"moduleVariables\":[],"
        + "\"anyModuleVariable\":\"V\",\"otherMemory\":false,\"prints\":false,\"mergeable\":true}"), json);
  }

  @Test
  void helpPrintsUsageAndSucceeds() {
    assertEquals(0, PtxCommand.run(new String[] {"--help"}, out, err));
    assertTrue(out().startsWith("Usage: kernelweave ptx [-h] [--json] FILE.ptx"), out());
    assertTrue(out().contains("--json") && out().contains("Exit codes:"), out());
    assertTrue(out().contains("OTHER"));
    assertEquals("", err());
  }

  @Test
  void missingFileIsOneLineNamingItWithUsageExit() {
    String missing = dir.resolve("nowhere.ptx").toString();
    assertEquals(Main.USAGE, PtxCommand.run(new String[] {missing}, out, err));
    assertEquals("kernelweave ptx: cannot read " + missing + ": no such file" + System.lineSeparator(), err());
    assertEquals("", out());
  }

  @Test
  void directoryIsNotReadable() {
    assertEquals(Main.USAGE, PtxCommand.run(new String[] {dir.toString()}, out, err));
    assertEquals("kernelweave ptx: cannot read " + dir + ": is a directory" + System.lineSeparator(), err());
  }

  @Test
  void binaryFileIsNotPtx() throws IOException {
    Path cubin = write("kernel.cubin", new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0});
    assertEquals(Main.USAGE, PtxCommand.run(new String[] {cubin.toString()}, out, err));
    assertTrue(err().startsWith("kernelweave ptx: " + cubin + " is not PTX text"), err());
    assertEquals(1, err().lines().count());
  }

  @Test
  void noFileUnknownOptionAndTwoFilesAreUsageErrors() throws IOException {
    assertEquals(Main.USAGE, PtxCommand.run(new String[0], out, err));
    assertEquals(Main.USAGE, PtxCommand.run(new String[] {"--yaml", module().toString()}, out, err));
    assertEquals(Main.USAGE, PtxCommand.run(new String[] {"a.ptx", "b.ptx"}, out, err));
    assertEquals(3, err().lines().count(), err());
    assertTrue(err().lines().allMatch(l -> l.startsWith("kernelweave ptx: ")), err());
    assertEquals("", out());
  }

  @Test
  void moduleWithoutKernelsPrintsNothingAndSaysSo() throws IOException {
    Path empty = write("empty.ptx", ".version 8.5\n.target sm_75\n.address_size 64\n".getBytes(StandardCharsets.US_ASCII));
    assertEquals(0, PtxCommand.run(new String[] {empty.toString()}, out, err));
    assertEquals("", out());
    assertTrue(err().contains("defines no kernel"), err());
  }

  @Test
  void nulTerminatedImageIsReadUpToTheNul() throws IOException {
    byte[] text = MODULE.getBytes(StandardCharsets.US_ASCII);
    byte[] image = java.util.Arrays.copyOf(text, text.length + 3);
    Path file = write("image.ptx", image);
    assertEquals(0, PtxCommand.run(new String[] {file.toString()}, out, err), err());
    assertEquals(3, out().lines().count());
  }
}
