package dev.kernelweave.it.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.agent.cli.Main;
import dev.kernelweave.kernels.Ptx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ptx} on the PTX the build made of the workloads' CUDA sources: a kernel that writes a
 * single result at its pointer gets that extent, so that launches writing different slots of one
 * buffer are independent; every parameter indexed by a thread, a block or a loop stays unbounded.
 * A {@code +} marks a parameter proven never to be accessed below its pointer: the router's output,
 * indexed by an unsigned thread index, for every launch; the grid-stride loops whose counter is
 * compared with {@code n} right after each step ({@code +2x+p1<=2147483647}: while {@code n + 2 *
 * gridDim.x * blockDim.x} stays below 2^31), also where nvcc increments the counter through its
 * 64-bit copy (around an inner loop), where a stencil's right neighbour is a {@code selp} of two
 * non-negative indices, and where its left neighbour wraps around ({@code i == 0 ? n - 1 : i - 1},
 * inside the loop that {@code i < n} guards: {@code branch_step}'s {@code in}, {@code pipe_smooth}'s
 * {@code tmp}). Not proven: an index by {@code (i + step) % n} of a signed {@code step}, a bound that
 * is a product.
 */
class WorkloadKernelExtentsTest {

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      rlsim     | rl_policy\tR+2x+p3<=2147483647 R W+2x+p3<=2147483647 V V;rl_step\tR+2x+p3<=2147483647 R+2x+p3<=2147483647 W+2x+p3<=2147483647 V V;rl_reward\tR R W[0,4) V;rl_total\tR V W[0,8)
      branches  | branch_step\tR+2x+p3<=2147483647 R W+2x+p3<=2147483647 V V V;branch_join\tR+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 R+2x+p17<=2147483647 W+2x+p17<=2147483647 V
      chain     | chain_step\tRW+2x+p1<=2147483647 V V V
      dynamic   | moe_router\tR R W+ V;moe_expert_step\tR+2x+p4<=2147483647 R+2x+p4<=2147483647 R+2x+p4<=2147483647 W+2x+p4<=2147483647 V V;moe_combine\tRW+2x+p9<=2147483647 R+2x+p9<=2147483647 R+2x+p9<=2147483647 R+2x+p9<=2147483647 R+2x+p9<=2147483647 V V V V V
      heads     | heads_mix\tR W V V
      pipeline  | pipe_prepare\tR+2x+p2<=2147483647 W+2x+p2<=2147483647 V V;pipe_smooth\tR+2x+p2<=2147483647 W+2x+p2<=2147483647 V V;pipe_finish\tRW+2x+p1<=2147483647 V V
      """)
  void onlyKernelsWritingAFixedSlotGetAnExtent(String module, String expected) throws IOException {
    Path file = dir.resolve(module + ".ptx");
    Files.writeString(file, Ptx.text(module), StandardCharsets.US_ASCII);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"ptx", file.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    // Every workload kernel merges (MergedKernelsOnCpuDeviceTest runs the merged variants): a last column says so.
    assertEquals(expected.replace(";", "\tmergeable\n") + "\tmergeable\n",
        out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
  }
}
