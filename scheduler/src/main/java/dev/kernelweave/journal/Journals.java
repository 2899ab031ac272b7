package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import java.util.stream.Stream;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.internal.AnalyticsHolder;
import net.openhft.posix.internal.PosixAPIHolder;

/** How the journal uses Chronicle Queue, in one place for the writer and the reader. */
final class Journals {

  /** Chronicle's queue files: {@code *.cq4} for data, {@code metadata.cq4t} for the queue's table. */
  static final String DATA_SUFFIX = ".cq4";
  static final String METADATA_FILE = "metadata.cq4t";

  private static final String ANALYTICS_OFF = "chronicle.analytics.disable";
  private static final String SYSTEM_PROPERTIES = "system.properties";
  private static final String[] TOUCHED = {ANALYTICS_OFF, SYSTEM_PROPERTIES, "user.timezone"};

  private static boolean started;

  private Journals() {}

  /**
   * Starts Chronicle's process-wide parts on the calling thread, once: its {@code Jvm} class, the
   * {@code BackgroundResourceReleaser} with its thread and its one JVM shutdown hook, and the usage
   * reports' holder. Called at the first CUDA call, never from a shutdown hook: a JVM that is
   * already shutting down refuses new hooks, Chronicle's class initialization then fails, and its
   * releaser thread prints a {@code NoClassDefFoundError} trace on the program's stderr. That is how
   * short programs lost their journal when the queue was first built on the writer thread while the
   * program was exiting.
   *
   * <p>What Chronicle would otherwise do to the host process is settled here, without leaving a
   * mark: the two system properties below are set only while these classes initialize (they read
   * them then and never again), and they and what Chronicle sets are put back as they were
   * afterwards, so the application never sees them.
   *
   * <ul>
   *   <li>{@code chronicle.analytics.disable}: Chronicle sends usage reports to its vendor (and
   *       writes a client id in the user's home) unless told not to; an agent must not.
   *   <li>{@code system.properties}: Chronicle copies the entries of a {@code system.properties} file
   *       in the working directory (or its parent) into the JVM's system properties; the
   *       application's file of that name is not meant for it. A name that does not exist turns it
   *       off.
   *   <li>Native code: Chronicle loads its POSIX bindings (jnr-ffi, which unpacks a native stub into
   *       the temporary directory and draws warnings on newer JDKs) only for features the journal
   *       does not use; the no-op bindings keep it out.
   * </ul>
   *
   * <p>An explicit setting of either property by the application is left as it is and wins.
   * Another thread reading the system properties during these few milliseconds may see the two
   * names. Thread-safe.
   *
   * @throws IllegalStateException when the JVM is already shutting down (nothing of Chronicle is
   *     touched then)
   */
  static synchronized void startChronicle() {
    if (started) {
      return;
    }
    if (shuttingDown()) {
      throw new IllegalStateException("the program is exiting");
    }
    Properties before = (Properties) System.getProperties().clone();
    try {
      if (before.getProperty(ANALYTICS_OFF) == null) {
        System.setProperty(ANALYTICS_OFF, "true");
      }
      if (before.getProperty(SYSTEM_PROPERTIES) == null) {
        System.setProperty(SYSTEM_PROPERTIES, "kernelweave-ignores-system.properties");
      }
      try {
        if (PosixAPIHolder.POSIX_API == null) {
          PosixAPIHolder.useNoOpPosixApi();
        }
      } catch (Throwable ignored) {
        // Another Chronicle version: it loads its bindings as it always did.
      }
      initialize(Jvm.class);
      initialize(BackgroundResourceReleaser.class);
      initialize(AnalyticsHolder.class);
      started = true;
    } finally {
      restore(before);
    }
  }

  /**
   * Puts back as they were the two properties above and the one Chronicle's classes set as they
   * initialize ({@code user.timezone}, by asking for the default time zone). Only these: another
   * thread of the application may set properties of its own meanwhile.
   */
  private static void restore(Properties before) {
    for (String name : TOUCHED) {
      String old = before.getProperty(name);
      if (old == null) {
        System.clearProperty(name);
      } else {
        System.setProperty(name, old);
      }
    }
  }

  private static void initialize(Class<?> type) {
    try {
      Class.forName(type.getName(), true, type.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether the JVM has begun to shut down: it then refuses new shutdown hooks. */
  static boolean shuttingDown() {
    Thread probe = new Thread(() -> { }, "kernelweave-shutdown-probe");
    try {
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }

  static SingleChronicleQueue writerQueue(Path directory, RollCycle rollCycle, long blockSize) {
    startChronicle();
    return SingleChronicleQueueBuilder.binary(directory)
        .rollCycle(rollCycle)
        .blockSize(blockSize)
        .build();
  }

  /** Whether {@code directory} holds a queue: its metadata table or at least one data file. */
  static boolean holdsJournal(Path directory) throws IOException {
    if (Files.exists(directory.resolve(METADATA_FILE))) {
      return true;
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.anyMatch(p -> p.getFileName().toString().endsWith(DATA_SUFFIX));
    }
  }

  /** Creates {@code directory} and its missing parents; what it creates is rwx------ where POSIX. */
  static void createPrivateDirectory(Path directory) throws IOException {
    if (Files.isDirectory(directory)) {
      return;
    }
    Path parent = directory.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      createPrivateDirectory(parent);
    }
    try {
      if (posix(parent == null ? directory.toAbsolutePath().getRoot() : parent)) {
        Files.createDirectory(directory,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectory(directory);
      }
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(directory)) {
        throw new IOException(directory + " exists and is not a directory", e);
      }
    }
  }

  static boolean posix(Path existing) throws IOException {
    return Files.getFileStore(existing).supportsFileAttributeView(PosixFileAttributeView.class);
  }
}
