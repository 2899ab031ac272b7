package dev.kernelweave.ptx;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CUDA corpus of {@code src/test/cuda/ptx-corpus.cu}: its expectations, and the PTX that
 * {@code build-ptx.sh} made of it.
 */
final class PtxCorpus {
  private PtxCorpus() {}

  /** Built with optimization, as applications ship: held to the expected tokens exactly. */
  static final List<String> OPTIMIZED = List.of("corpus-sm75", "corpus-sm90", "corpus-sm90-lineinfo");
  /** Built with -G. */
  static final List<String> DEBUG = List.of("corpus-sm75-debug", "corpus-sm90-debug");

  static List<String> allVariants() {
    List<String> all = new ArrayList<>(OPTIMIZED);
    all.addAll(DEBUG);
    return all;
  }

  /** What the source says of one kernel. */
  static final class Expectation {
    final String kernel;
    final List<ParameterUse> uses;
    /** Per parameter, the extent the source proves, {@code W[0,4)}; unbounded where none is written. */
    final List<ParameterExtent> extents;
    /** Module variables, {@code name:USE} in the source; {@code *} for any variable. */
    final Map<String, ParameterUse> variables;
    final boolean other;
    /** PRINTF in the source: the kernel prints. */
    final boolean prints;

    Expectation(String kernel, List<ParameterUse> uses, List<ParameterExtent> extents,
        Map<String, ParameterUse> variables, boolean other, boolean prints) {
      this.kernel = kernel;
      this.uses = uses;
      this.extents = extents;
      this.variables = variables;
      this.other = other;
      this.prints = prints;
    }

    /** The line {@code ptx} prints for the kernel. */
    String line() {
      Map<String, ParameterUse> named = new LinkedHashMap<>(variables);
      ParameterUse any = named.remove(KernelSummaryFormat.ANY_VARIABLE);
      return KernelSummaryFormat.line(new KernelAccessSummary(kernel, uses, new int[uses.size()], other, named,
          any == null ? ParameterUse.V : any, extents, prints));
    }
  }

  private static Map<String, Expectation> expectations;

  /** {@code RW}, or {@code W[-4,12)}. */
  private static final Pattern USE_AND_EXTENT = Pattern.compile("(R|W|RW|V)(?:\\[(-?\\d+),(-?\\d+)\\))?");

  /** The {@code //@expect} lines of the corpus, by kernel, in source order. */
  static synchronized Map<String, Expectation> expectations() {
    if (expectations == null) {
      Map<String, Expectation> map = new LinkedHashMap<>();
      for (String line : source().split("\n")) {
        if (!line.startsWith("//@expect ")) continue;
        String rest = line.substring("//@expect ".length());
        int colon = rest.indexOf(':');
        String kernel = rest.substring(0, colon).trim();
        List<ParameterUse> uses = new ArrayList<>();
        List<ParameterExtent> extents = new ArrayList<>();
        Map<String, ParameterUse> variables = new LinkedHashMap<>();
        boolean other = false;
        boolean prints = false;
        for (String token : rest.substring(colon + 1).trim().split(" +")) {
          if (token.isEmpty()) continue;
          int sep = token.lastIndexOf(':');
          if (token.equals(KernelSummaryFormat.OTHER)) other = true;
          else if (token.equals(KernelSummaryFormat.PRINTF)) prints = true;
          else if (sep > 0) variables.put(token.substring(0, sep), ParameterUse.valueOf(token.substring(sep + 1)));
          else {
            Matcher m = USE_AND_EXTENT.matcher(token);
            if (!m.matches()) throw new IllegalStateException("not a parameter token: " + token);
            uses.add(ParameterUse.valueOf(m.group(1)));
            extents.add(m.group(2) == null ? ParameterExtent.UNBOUNDED
                : ParameterExtent.of(Long.parseLong(m.group(2)), Long.parseLong(m.group(3))));
          }
        }
        if (map.put(kernel, new Expectation(kernel, uses, extents, variables, other, prints)) != null) {
          throw new IllegalStateException("two expectations for " + kernel);
        }
      }
      expectations = Collections.unmodifiableMap(map);
    }
    return expectations;
  }

  static String source() {
    try {
      return Files.readString(Path.of("src/test/cuda/ptx-corpus.cu"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String ptx(String variant) {
    try (InputStream in = PtxCorpus.class.getResourceAsStream("/ptx/" + variant + ".ptx")) {
      if (in == null) throw new IllegalArgumentException("no test resource ptx/" + variant + ".ptx");
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, KernelAccessSummary> analyzed(String variant) {
    Map<String, KernelAccessSummary> map = new LinkedHashMap<>();
    for (KernelAccessSummary s : PtxAnalyzer.analyze(ptx(variant))) map.put(s.name(), s);
    return map;
  }
}
