package dev.kernelweave.it.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Builds what the orchestration tests run instead of the GPU workloads and the real agent. */
final class Fakes {
  private Fakes() {}

  /** The test classes folder: the fake workloads' class path. */
  static String testClassPath() {
    try {
      return Path.of(FakeWorkloadMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A jar holding {@link FakeAgent} as both the agent and the command line. */
  static Path agentJar(Path dir) throws IOException {
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.put(Attributes.Name.MAIN_CLASS, FakeAgent.class.getName());
    main.putValue("Premain-Class", FakeAgent.class.getName());
    Path jar = dir.resolve("fake-agent.jar");
    String entry = FakeAgent.class.getName().replace('.', '/') + ".class";
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file, manifest);
        InputStream bytes = FakeAgent.class.getClassLoader().getResourceAsStream(entry)) {
      out.putNextEntry(new JarEntry(entry));
      bytes.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }

  /** A launcher with a short time limit. */
  static Jvm jvm(long timeoutSeconds) {
    return new Jvm(Jvm.currentJava(), timeoutSeconds);
  }
}
