package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KernelSummaryCacheTest {

  private static final String PTX = """
      .version 8.5
      .target sm_90
      .address_size 64
      .visible .entry fill(.param .u64 fill_p0)
      {
      .reg .b64 %rd1;
      ld.param.u64 %rd1, [fill_p0];
      st.global.u32 [%rd1], 0;
      ret;
      }
      """;

  /** An analyzer that counts its runs. */
  private static final class Counting implements java.util.function.Function<CharSequence, ModuleAccessSummary> {
    final AtomicInteger runs = new AtomicInteger();

    @Override
    public ModuleAccessSummary apply(CharSequence ptx) {
      runs.incrementAndGet();
      return PtxAnalyzer.analyzeModule(ptx);
    }
  }

  @Test
  void mergedVariantsAreGeneratedOncePerModuleFromItsSummaries() {
    Counting counting = new Counting();
    KernelSummaryCache cache = new KernelSummaryCache(8, counting);
    MergedKernel first = cache.merged(PTX, "fill");
    assertTrue(first.mergeable(), first.verdict());
    assertSame(first, cache.merged(new StringBuilder(PTX), "fill"));
    assertEquals(1, counting.runs.get());
    assertEquals("not mergeable: no such kernel defined in the module", cache.merged(PTX, "missing").verdict());
  }

  @Test
  void sameTextIsAnalysedOnceAndLookedUpByKernelName() {
    Counting counting = new Counting();
    KernelSummaryCache cache = new KernelSummaryCache(8, counting);
    ModuleAccessSummary first = cache.module(PTX);
    ModuleAccessSummary again = cache.module(new StringBuilder(PTX));
    assertSame(first, again);
    assertEquals(1, counting.runs.get());
    assertEquals("fill\tW[0,4)", KernelSummaryFormat.line(cache.kernel(PTX, "fill").orElseThrow()));
    assertEquals(Optional.empty(), cache.kernel(PTX, "missing"));
    assertEquals(1, counting.runs.get());
  }

  @Test
  void differentTextIsAnalysedOnItsOwn() {
    Counting counting = new Counting();
    KernelSummaryCache cache = new KernelSummaryCache(8, counting);
    String other = PTX.replace("st.global", "ld.global.u32 %r1, [%rd1];\n//").replace("fill", "peek");
    assertNotSame(cache.module(PTX), cache.module(other));
    assertEquals("peek\tR[0,4)", KernelSummaryFormat.line(cache.kernel(other, "peek").orElseThrow()));
    assertEquals(2, counting.runs.get());
  }

  @Test
  void concurrentLookupsOfOneModuleShareOneAnalysis() throws Exception {
    Counting counting = new Counting();
    KernelSummaryCache cache = new KernelSummaryCache(8, counting);
    String big = PtxCorpus.ptx("corpus-sm90");
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<ModuleAccessSummary>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(pool.submit(() -> {
          start.await();
          return cache.module(big);
        }));
      }
      start.countDown();
      ModuleAccessSummary first = results.get(0).get(30, TimeUnit.SECONDS);
      for (Future<ModuleAccessSummary> f : results) assertSame(first, f.get(30, TimeUnit.SECONDS));
      assertEquals(1, counting.runs.get());
      assertTrue(first.kernel("copy_f32").isPresent());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void leastRecentlyUsedModulesAreDroppedBeyondTheMaximum() {
    Counting counting = new Counting();
    KernelSummaryCache cache = new KernelSummaryCache(2, counting);
    for (int i = 0; i < 10; i++) cache.module(PTX.replace("fill", "fill" + i));
    assertTrue(cache.size() <= 2, "held " + cache.size());
    assertThrows(IllegalArgumentException.class, () -> new KernelSummaryCache(0));
  }

  @Test
  void moduleImageIsReadUpToItsNulAndBinaryImagesGiveNothing() {
    KernelSummaryCache cache = new KernelSummaryCache();
    byte[] text = PTX.getBytes(StandardCharsets.US_ASCII);
    byte[] image = java.util.Arrays.copyOf(text, text.length + 1); // NUL-terminated, as JCuda passes it
    assertEquals("fill\tW[0,4)", KernelSummaryFormat.line(cache.module(image).orElseThrow().kernel("fill").orElseThrow()));
    assertEquals(Optional.empty(), cache.module(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}));
    assertEquals(Optional.empty(), cache.module(new byte[] {(byte) 0x50, (byte) 0xed, 0x55, (byte) 0xba, 1, 0}));
    assertEquals(Optional.empty(), cache.module("just some text".getBytes(StandardCharsets.US_ASCII)));
  }
}
