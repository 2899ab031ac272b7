package dev.kernelweave.it.agent;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;

/**
 * Runs a program whose classes and JCuda live only in a child class loader, as in an application
 * server or a plugin: {@code --urls A.jar:B.jar MAIN ARGS} puts them in a {@link URLClassLoader};
 * {@code --nested OUTER.jar MAIN ARGS} reads the jars nested in OUTER.jar's {@code lib/}, as a
 * Spring Boot fat jar's launcher does. Its own class is the only one on the system class path.
 */
public final class ChildLoaderLauncher {

  private ChildLoaderLauncher() {}

  public static void main(String[] args) throws Throwable {
    ClassLoader loader = switch (args[0]) {
      case "--urls" -> {
        String[] paths = args[1].split(File.pathSeparator);
        URL[] urls = new URL[paths.length];
        for (int i = 0; i < paths.length; i++) {
          urls[i] = new File(paths[i]).toURI().toURL();
        }
        yield new URLClassLoader("child", urls, ChildLoaderLauncher.class.getClassLoader());
      }
      case "--nested" -> new NestedJarLoader(new File(args[1]), ChildLoaderLauncher.class.getClassLoader());
      default -> throw new IllegalArgumentException("--urls or --nested, not " + args[0]);
    };
    Thread.currentThread().setContextClassLoader(loader);
    Class<?> main = Class.forName(args[2], true, loader);
    main.getMethod("main", String[].class).invoke(null, (Object) Arrays.copyOfRange(args, 3, args.length));
  }

  /** The classes and resources of the jars inside one jar's {@code lib/}, held in memory. */
  static final class NestedJarLoader extends ClassLoader {
    private final Map<String, byte[]> entries = new HashMap<>();
    private final ProtectionDomain domain;
    private final URLStreamHandler handler = new URLStreamHandler() {
      @Override
      protected URLConnection openConnection(URL u) {
        return new URLConnection(u) {
          @Override
          public void connect() { }

          @Override
          public InputStream getInputStream() throws IOException {
            byte[] b = entries.get(u.getPath());
            if (b == null) {
              throw new IOException("no " + u);
            }
            return new java.io.ByteArrayInputStream(b);
          }
        };
      }
    };

    NestedJarLoader(File outer, ClassLoader parent) throws IOException {
      super("nested", parent);
      domain = new ProtectionDomain(new CodeSource(outer.toURI().toURL(), (Certificate[]) null), null);
      try (JarInputStream jar = new JarInputStream(new java.io.FileInputStream(outer))) {
        for (JarEntry e = jar.getNextJarEntry(); e != null; e = jar.getNextJarEntry()) {
          if (e.getName().startsWith("lib/") && e.getName().endsWith(".jar")) {
            JarInputStream inner = new JarInputStream(new java.io.ByteArrayInputStream(jar.readAllBytes()));
            for (JarEntry ie = inner.getNextJarEntry(); ie != null; ie = inner.getNextJarEntry()) {
              if (!ie.isDirectory()) {
                entries.putIfAbsent(ie.getName(), readAll(inner));
              }
            }
          }
        }
      }
    }

    private static byte[] readAll(InputStream in) throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      byte[] b = entries.get(name.replace('.', '/') + ".class");
      if (b == null) {
        throw new ClassNotFoundException(name);
      }
      return defineClass(name, b, 0, b.length, domain);
    }

    @Override
    protected URL findResource(String name) {
      if (!entries.containsKey(name)) {
        return null;
      }
      try {
        return new URL("nested", null, -1, name, handler);
      } catch (IOException e) {
        return null;
      }
    }
  }
}
