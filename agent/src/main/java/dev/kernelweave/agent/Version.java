package dev.kernelweave.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version of this build of KernelWeave, as the build wrote it into {@code version.properties}
 * (the same value as the agent jar's {@code Implementation-Version}). Read from a resource rather
 * than the manifest, so that classes on a plain class path (tests, an IDE) know it too.
 */
public final class Version {

  /** What {@link #current} says when the resource is missing, as in a build that did not filter it. */
  static final String UNKNOWN = "unknown";

  private static final String RESOURCE = "version.properties";

  private Version() {}

  /** The project version, for example {@code 0.1.0}; {@value #UNKNOWN} when the build did not record it. */
  public static String current() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return UNKNOWN;
      }
      Properties p = new Properties();
      p.load(in);
      String version = p.getProperty("version", "").strip();
      // An unfiltered placeholder is no version.
      return version.isEmpty() || version.startsWith("${") ? UNKNOWN : version;
    } catch (IOException e) {
      return UNKNOWN;
    }
  }
}
