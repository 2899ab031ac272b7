package dev.kernelweave.ptx;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.kernelweave.scheduler.OrderingRules;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Analyses each distinct PTX module once and keeps the result, and its kernels' merged variants
 * ({@link #merged}). Thread-safe: concurrent lookups of the same module wait for one analysis.
 *
 * <p>Modules are keyed by the SHA-256 of their text and its length, so the text itself is not
 * retained. The least recently used modules are dropped beyond {@code maximumModules}.
 */
public final class KernelSummaryCache {

  /** Modules kept by {@link #KernelSummaryCache()}. */
  public static final long DEFAULT_MAXIMUM_MODULES = 256;

  private final Cache<Key, ModuleAccessSummary> cache;
  /** Each module's merged variants by kernel name, generated once beside its summaries. */
  private final Cache<Key, Map<String, MergedKernel>> merged;
  private final Function<CharSequence, ModuleAccessSummary> analyzer;

  public KernelSummaryCache() {
    this(DEFAULT_MAXIMUM_MODULES);
  }

  public KernelSummaryCache(long maximumModules) {
    this(maximumModules, OrderingRules.CUDA);
  }

  /** Analyses under {@code rules}: {@link OrderingRules#CUDA} but in the fuzz's broken analysis. */
  public KernelSummaryCache(long maximumModules, OrderingRules rules) {
    this(maximumModules, ptx -> PtxAnalyzer.analyzeModule(ptx, rules));
  }

  KernelSummaryCache(long maximumModules, Function<CharSequence, ModuleAccessSummary> analyzer) {
    if (maximumModules < 1) throw new IllegalArgumentException("maximumModules < 1: " + maximumModules);
    this.cache = Caffeine.newBuilder().maximumSize(maximumModules).build();
    this.merged = Caffeine.newBuilder().maximumSize(maximumModules).build();
    this.analyzer = analyzer;
  }

  /** The summaries of every kernel in {@code ptx}, analysed at most once per distinct text. */
  public ModuleAccessSummary module(CharSequence ptx) {
    Objects.requireNonNull(ptx, "ptx");
    String text = ptx.toString();
    return cache.get(Key.of(text), k -> analyzer.apply(text));
  }

  /**
   * The summaries for a module image as given to {@code cuModuleLoadData}: PTX text, possibly
   * NUL-terminated. Empty when the image is not PTX (a cubin or a fatbin): nothing is known then.
   */
  public Optional<ModuleAccessSummary> module(byte[] image) {
    Objects.requireNonNull(image, "image");
    return PtxAnalyzer.text(image).map(this::module);
  }

  /** The kernel named {@code name} in {@code ptx}; empty if the module defines no such entry. */
  public Optional<KernelAccessSummary> kernel(CharSequence ptx, String name) {
    return module(ptx).kernel(name);
  }

  /**
   * The merged variant of {@code kernel} in {@code ptx} ({@link KernelMerging}), or why there is
   * none; generated at most once per distinct text, from the cached summaries.
   */
  public MergedKernel merged(CharSequence ptx, String kernel) {
    Objects.requireNonNull(kernel, "kernel");
    String text = ptx.toString();
    MergedKernel m = mergedAll(text).get(kernel);
    return m != null ? m : KernelMerging.merge(text, kernel);
  }

  /** The merged variant of every kernel of {@code ptx}, or why there is none, by kernel name; unmodifiable. */
  public Map<String, MergedKernel> mergedAll(CharSequence ptx) {
    String text = ptx.toString();
    return merged.get(Key.of(text), k -> {
      Map<String, MergedKernel> byName = new HashMap<>();
      for (MergedKernel m : KernelMerging.mergeAll(text, module(text))) byName.put(m.kernel(), m);
      return Map.copyOf(byName);
    });
  }

  /** Modules held now; approximate. */
  public long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  private static final class Key {
    private final long high;
    private final long low;
    private final int length;

    private Key(long high, long low, int length) {
      this.high = high;
      this.low = low;
      this.length = length;
    }

    static Key of(String text) {
      MessageDigest sha;
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required of every Java platform", e);
      }
      ByteBuffer digest = ByteBuffer.wrap(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
      return new Key(digest.getLong(), digest.getLong(), text.length());
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Key)) return false;
      Key k = (Key) o;
      return high == k.high && low == k.low && length == k.length;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(high) * 31 + length;
    }
  }
}
