package dev.kernelweave.interceptor.install;

import dev.kernelweave.interceptor.AdviceWeaving;
import java.io.File;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Run by the build: weaves every JCuda class the agent instruments, from the JCuda jars on the
 * class path, with the same Byte Buddy transformer the agent would use at run time, and writes them
 * with an index ({@link PrewovenClasses}) into the given class output directory.
 */
public final class Preweaver {

  private Preweaver() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]).resolve(PrewovenClasses.DIRECTORY);
    Files.createDirectories(out);
    List<String> index = weaveAll(Preweaver.class.getClassLoader(), (name, woven) -> {
      Files.write(out.resolve(name.replace('/', '.') + ".bin"), woven);
    });
    Files.write(out.resolve("index"), index, StandardCharsets.UTF_8);
    System.out.println("[kernelweave] prewove " + index.stream().filter(l -> !l.endsWith(" -")).count() + " of "
        + index.size() + " JCuda classes into " + out);
  }

  /** Receives a woven class. */
  interface Sink {
    void accept(String internalName, byte[] woven) throws IOException;
  }

  /** Weaves every candidate class of the JCuda jars on the class path; returns the index lines. */
  static List<String> weaveAll(ClassLoader loader, Sink sink) throws IOException, IllegalClassFormatException {
    ClassFileTransformer weaver = AdviceWeaving.transformer();
    List<String> index = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.endsWith(".jar")) {
        continue;
      }
      try (JarFile jar = new JarFile(entry)) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
          JarEntry je = e.nextElement();
          String name = je.getName().endsWith(".class")
              ? je.getName().substring(0, je.getName().length() - ".class".length()) : "";
          if (!JCudaTransformer.isCandidate(name)) {
            continue;
          }
          byte[] original = jar.getInputStream(je).readAllBytes();
          byte[] woven = weaver.transform(loader, name, null, null, original);
          String hash = HexFormat.of().formatHex(PrewovenClasses.sha256(original));
          if (woven != null && references(woven, HelperInjection.ROOT)) {
            sink.accept(name, woven);
            index.add(name + " " + hash + " " + name.replace('/', '.') + ".bin");
          } else {
            index.add(name + " " + hash + " " + PrewovenClasses.UNCHANGED);
          }
        }
      }
    }
    index.sort(null);
    return index;
  }

  private static boolean references(byte[] classFile, String prefix) {
    return ClassReferences.of(classFile).references().stream().anyMatch(r -> r.startsWith(prefix));
  }
}
