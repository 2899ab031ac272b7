package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.posix.internal.PosixAPIHolder;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

/** How the journal uses Chronicle Queue, in one place for the writer and the reader. */
final class Journals {

  /** Chronicle's queue files: {@code *.cq4} for data, {@code metadata.cq4t} for the queue's table. */
  static final String DATA_SUFFIX = ".cq4";
  static final String METADATA_FILE = "metadata.cq4t";

  private Journals() {}

  private static volatile boolean muted;

  /**
   * Settles what Chronicle does to the process it runs in, before its first queue is built.
   *
   * <ul>
   *   <li>Usage reports: Chronicle sends them to its vendor over the network (and writes a client id
   *       in the user's home) unless told not to; an agent inside someone else's program must not.
   *       An explicit {@code -Dchronicle.analytics.disable} wins.
   *   <li>Configuration files: on start Chronicle copies the entries of a {@code system.properties}
   *       file in the working directory (or its parent) into the JVM's system properties; the
   *       application's file of that name is not meant for it. Pointing the property of the same
   *       name at a file that does not exist turns that off; an explicit setting wins.
   *   <li>Native code: Chronicle loads its POSIX bindings (jnr-ffi, which unpacks a native stub
   *       into the temporary directory and, on JDK 24 and later, draws restricted-method and
   *       {@code sun.misc.Unsafe} warnings) only for features the journal does not use (CPU
   *       affinity, POSIX clocks); the no-op bindings keep it out.
   * </ul>
   */
  static void muteChronicle() {
    if (muted) {
      return;
    }
    muted = true;
    if (System.getProperty("chronicle.analytics.disable") == null) {
      System.setProperty("chronicle.analytics.disable", "true");
    }
    if (System.getProperty("system.properties") == null) {
      System.setProperty("system.properties", "kernelweave-ignores-system.properties");
    }
    try {
      if (PosixAPIHolder.POSIX_API == null) {
        PosixAPIHolder.useNoOpPosixApi();
      }
    } catch (Throwable ignored) {
      // Another Chronicle version: it loads its bindings as it always did.
    }
  }

  static SingleChronicleQueue writerQueue(Path directory, RollCycle rollCycle, long blockSize) {
    muteChronicle();
    return SingleChronicleQueueBuilder.binary(directory)
        .rollCycle(rollCycle)
        .blockSize(blockSize)
        .build();
  }

  /**
   * A read-only view: it never takes the writer's lock and never grows a file, so it reads a journal
   * that is being written, one whose writer died, and one on a read-only disk.
   */
  static SingleChronicleQueue readerQueue(Path directory) {
    muteChronicle();
    return SingleChronicleQueueBuilder.binary(directory)
        .readOnly(true)
        .forceDirectoryListingRefreshIntervalMs(250)
        .build();
  }

  /** Whether {@code directory} holds a queue: its metadata table or at least one data file. */
  static boolean holdsJournal(Path directory) throws IOException {
    if (Files.isRegularFile(directory.resolve(METADATA_FILE))) {
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
    boolean posix = Files.getFileStore(parent == null ? directory.getRoot() : parent)
        .supportsFileAttributeView(PosixFileAttributeView.class);
    try {
      if (posix) {
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
}
