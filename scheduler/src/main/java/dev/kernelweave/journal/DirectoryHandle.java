package dev.kernelweave.journal;

import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Set;

/**
 * The journal's directory as it was when the journal opened it, never looked up again by a name
 * someone could swap meanwhile: Chronicle is given {@code /proc/self/fd/N} of an open handle on the
 * directory, which reaches the directory itself whatever its name now leads to. Where there is no
 * {@code /proc} (or the handle's number cannot be had), Chronicle gets the path and
 * {@link #verify} compares the directory's file key, read without following links, with the one
 * at opening before each file is created: a swapped directory is refused, never written.
 *
 * <p>Thread-safe; {@link #close} releases the handle.
 */
final class DirectoryHandle implements AutoCloseable {

  private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");

  private final Path path;
  private final Object key;
  private final FileChannel handle;
  private final Path access;
  private final boolean posix;

  private DirectoryHandle(Path path, Object key, FileChannel handle, Path access) throws IOException {
    this.posix = JournalStorage.posix(path);
    this.path = path;
    this.key = key;
    this.handle = handle;
    this.access = access;
  }

  /**
   * Opens {@code directory}, which must be a directory and not a link.
   *
   * @throws IOException naming what is wrong with it
   */
  static DirectoryHandle open(Path directory) throws IOException {
    BasicFileAttributes a = Files.readAttributes(directory, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (a.isSymbolicLink()) {
      throw new IOException(directory + " is a link; the journal goes only into a directory itself");
    }
    if (!a.isDirectory()) {
      throw new IOException(directory + " is not a directory");
    }
    Object key = a.fileKey();
    FileChannel handle = null;
    Path access = directory;
    try {
      handle = FileChannel.open(directory, StandardOpenOption.READ);
      int fd = descriptor(handle);
      Path proc = Path.of("/proc/self/fd/" + fd);
      if (fd >= 0 && key != null && key.equals(Files.readAttributes(proc, BasicFileAttributes.class).fileKey())) {
        access = proc;
      }
    } catch (IOException | RuntimeException | LinkageError e) {
      // No handle or no /proc: the path, with the key checked before each file.
    }
    DirectoryHandle h = new DirectoryHandle(directory, key, handle, access);
    h.verify();
    return h;
  }

  /** A handle that reaches the directory by its path, as where there is no {@code /proc}: for tests. */
  static DirectoryHandle byPath(Path directory) throws IOException {
    DirectoryHandle h = open(directory);
    h.close();
    DirectoryHandle byPath = new DirectoryHandle(directory, h.key, null, directory);
    byPath.verify();
    return byPath;
  }

  /** The number of the channel's file descriptor, or -1 where the JDK's fields cannot be read. */
  private static int descriptor(FileChannel channel) {
    try {
      Field fdField = channel.getClass().getDeclaredField("fd");
      fdField.setAccessible(true);
      FileDescriptor fd = (FileDescriptor) fdField.get(channel);
      Field number = FileDescriptor.class.getDeclaredField("fd");
      number.setAccessible(true);
      return number.getInt(fd);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }

  /** The directory's path as opened: for messages and readers, not for writing. */
  Path path() {
    return path;
  }

  /** Where files are created: the handle's {@code /proc} entry, or the path where there is none. */
  Path access() {
    return access;
  }

  /** Whether files are created through the handle rather than by the directory's path. */
  boolean throughHandle() {
    return access != path;
  }

  /**
   * Checks that {@link #access} still leads to the directory opened.
   *
   * @throws IOException when it was replaced (moved away, swapped for a link or another directory)
   */
  void verify() throws IOException {
    Object now = key == null ? null : Files.readAttributes(access, BasicFileAttributes.class,
        throughHandle() ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS}).fileKey();
    if (!Objects.equals(key, now)) {
      throw new IOException(path + " was replaced after the journal opened it; not writing there");
    }
  }

  /**
   * Makes the journal's files readable and writable by their owner only (rw-------): Java has no
   * umask, and Chronicle creates its files rw-r--r--. The directory is rwx------, so no one else can
   * open a file in the moment before. The journal's threads (writer, queue builder); setting a mode twice is harmless.
   */
  void ownerOnlyFiles() throws IOException {
    if (!posix) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(access)) {
      for (Path f : files) {
        if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
          Files.setPosixFilePermissions(f, OWNER_READ_WRITE);
        }
      }
    }
  }

  @Override
  public void close() {
    try {
      if (handle != null) {
        handle.close();
      }
    } catch (IOException ignored) {
      // A read-only handle on a directory: nothing was written through it.
    }
  }
}
