package dev.kernelweave.interceptor.install;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * JCuda's classes as the build wove them ({@link Preweaver}), so that a JVM starting with the agent
 * loads no Byte Buddy at all when the application's JCuda is the one the agent was built against.
 * A class is recognized by the SHA-256 of its class file; any other bytes (another JCuda version,
 * another agent's changes) are woven at run time instead. Immutable once loaded; thread-safe.
 */
final class PrewovenClasses {

  /** Where the index and the woven classes lie on the agent's class path. */
  static final String DIRECTORY = "dev/kernelweave/interceptor/install/prewoven/";
  static final String INDEX = DIRECTORY + "index";
  /** The index's mark for a class the advice leaves as it is. */
  static final String UNCHANGED = "-";

  /** What is known of one class file. */
  enum Verdict { WOVEN, UNCHANGED, UNKNOWN }

  private record Entry(byte[] sha256, String resource) {}

  private final ClassLoader agentLoader;
  private final Map<String, Entry> entries;

  private PrewovenClasses(ClassLoader agentLoader, Map<String, Entry> entries) {
    this.agentLoader = agentLoader;
    this.entries = entries;
  }

  /** The index on the agent's class path; empty when the build made none. */
  static PrewovenClasses load(ClassLoader agentLoader) throws IOException {
    Map<String, Entry> entries = new HashMap<>();
    try (InputStream in = agentLoader.getResourceAsStream(INDEX)) {
      if (in != null) {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          String[] f = line.split(" ");
          if (f.length == 3) {
            entries.put(f[0], new Entry(HexFormat.of().parseHex(f[1]), f[2]));
          }
        }
      }
    }
    return new PrewovenClasses(agentLoader, entries);
  }

  /** Whether this class file is one the build wove, left alone, or never saw. */
  Verdict verdict(String internalName, byte[] classFile) {
    Entry e = entries.get(internalName);
    if (e == null || !Arrays.equals(e.sha256, sha256(classFile))) {
      return Verdict.UNKNOWN;
    }
    return e.resource.equals(UNCHANGED) ? Verdict.UNCHANGED : Verdict.WOVEN;
  }

  /** The woven class file; only for a {@link Verdict#WOVEN} class. */
  byte[] woven(String internalName) throws IOException {
    try (InputStream in = agentLoader.getResourceAsStream(DIRECTORY + entries.get(internalName).resource)) {
      if (in == null) {
        throw new IOException("the agent jar lacks the woven " + internalName);
      }
      return in.readAllBytes();
    }
  }

  int size() {
    return entries.size();
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
