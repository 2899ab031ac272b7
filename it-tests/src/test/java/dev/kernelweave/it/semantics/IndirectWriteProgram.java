package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleLoadDataEx;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * Sequence 3: a kernel that writes through a pointer stored in device memory (its only parameter is
 * the table holding that pointer), then a synchronous read of the target. The kernel comes from the
 * PTX ({@code --variant ptx}, for the agent's {@code ptx=off}), from an sm_90 cubin
 * ({@code --variant cubin}) or from an sm_90 fatbin without PTX ({@code --variant fatbin}). The read
 * runs on the legacy stream after the kernel: it sees the kernel's values.
 *
 * <p>{@code --variant cubin-after-unload} and {@code fatbin-after-unload} first load and unload a
 * PTX module whose {@code indirect_fill} of the same parameters does nothing, so that the driver may
 * give the cubin's module (loaded with {@code cuModuleLoadData}, the fatbin's with {@code
 * cuModuleLoadDataEx}) and its function the handles the PTX module's had: what the PTX said of
 * its kernel says nothing of the new one.
 */
public final class IndirectWriteProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "ptx");
    String image = switch (seq.variant) {
      case "ptx" -> "/ptx/semantics.ptx";
      case "cubin" -> "/cubin/semantics.sm_90.cubin";
      case "fatbin", "fatbin-after-unload" -> "/cubin/semantics.sm_90.fatbin";
      case "cubin-after-unload" -> "/cubin/semantics.sm_90.cubin";
      default -> throw new IllegalArgumentException(
          "variant ptx, cubin, fatbin, cubin-after-unload or fatbin-after-unload: " + seq.variant);
    };
    CUmodule module;
    if (seq.variant.endsWith("-after-unload")) {
      // The driver gives handles back late, if at all: a few rounds make it likelier.
      int attempt = 0;
      boolean reused;
      do {
        CUmodule decoy = new CUmodule();
        expectSuccess("cuModuleLoadData(decoy)", cuModuleLoadData(decoy, DECOY_PTX.getBytes(StandardCharsets.US_ASCII)));
        CUfunction decoyFill = Sequence.function(decoy, "indirect_fill");
        expectSuccess("cuModuleUnload(decoy)", cuModuleUnload(decoy));
        module = seq.variant.startsWith("fatbin") ? loadWithoutOptions(image) : Sequence.load(image);
        reused = decoy.equals(module) || decoyFill.equals(Sequence.function(module, "indirect_fill"));
        if (!reused && ++attempt < ATTEMPTS) {
          expectSuccess("cuModuleUnload", cuModuleUnload(module));
        }
      } while (!reused && attempt < ATTEMPTS);
      System.out.println("note: " + (reused ? "the module or its function has an unloaded one's handle, round "
          + (attempt + 1) : "no handle came back in " + ATTEMPTS + " rounds"));
    } else {
      module = Sequence.load(image);
    }
    CUfunction indirectFill = Sequence.function(module, "indirect_fill");
    seq.repeat(rep -> {
      CUdeviceptr target = alloc(BYTES);
      CUdeviceptr table = alloc(Sizeof.POINTER);
      cuMemcpyHtoD(target, Pointer.to(Sequence.ramp(-5000f)), BYTES);
      cuMemcpyHtoD(table, Pointer.to(target), Sizeof.POINTER);
      float value = 10f * rep + 3f;
      seq.rc(rep, "indirect_fill", 0, Sequence.launch(indirectFill, null, table, value, Sequence.N, seq.cycles));
      seq.check(rep, "target", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(target)));
      Sequence.release(table, target);
    });
  }

  private static final int ATTEMPTS = 32;

  private static void expectSuccess(String call, int code) {
    if (code != 0) {
      throw new IllegalStateException(call + " returned " + code);
    }
  }

  /** A kernel of {@code indirect_fill}'s name and parameters that reads and writes nothing. */
  private static final String DECOY_PTX = """
      .version 7.0
      .target sm_52
      .address_size 64
      .visible .entry indirect_fill(
        .param .u64 indirect_fill_param_0,
        .param .f32 indirect_fill_param_1,
        .param .u32 indirect_fill_param_2,
        .param .u64 indirect_fill_param_3
      )
      {
        ret;
      }
      """ + "\0";

  private static CUmodule loadWithoutOptions(String resource) throws IOException {
    try (InputStream in = IndirectWriteProgram.class.getResourceAsStream(resource)) {
      CUmodule module = new CUmodule();
      int code = cuModuleLoadDataEx(module, Pointer.to(in.readAllBytes()), 0, new int[0], new Pointer());
      if (code != 0) {
        throw new IllegalStateException("cuModuleLoadDataEx(" + resource + ") returned " + code);
      }
      return module;
    }
  }
}
