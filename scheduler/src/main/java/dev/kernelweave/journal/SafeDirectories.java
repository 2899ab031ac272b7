package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Directories no other local user can swap, as strict as ssh is with its files: the directory and
 * every directory above it are owned by the user or root and not writable by group or others, where
 * a sticky directory such as {@code /tmp} is the one exception above the last. The path is walked
 * one name at a time without following links; a link is followed only where it lies in a directory
 * that passed, so a link planted by another user is refused with the directory that holds it.
 * Missing directories are created owner-only, and only inside directories that passed.
 *
 * <p>Stateless and thread-safe. On a file system without POSIX permissions nothing is checked.
 */
final class SafeDirectories {

  /** Bits of {@code unix:mode}: the sticky bit, and write by group and by others. */
  private static final int STICKY = 01000;
  private static final int GROUP_OR_OTHERS_WRITE = 0022;
  private static final int MAX_LINKS = 40;
  static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

  private SafeDirectories() {}

  /**
   * Checks {@code directory} and all above it, creating what is missing owner-only.
   *
   * @return the directory's real path (no links, no {@code .} or {@code ..})
   * @throws IOException naming the first directory that another user could change, and why
   */
  static Path prepare(Path directory) throws IOException {
    Path absolute = directory.toAbsolutePath();
    Path root = absolute.getRoot();
    if (!JournalStorage.posix(root)) {
      JournalStorage.createPrivateDirectory(directory);
      return directory.toRealPath();
    }
    UserPrincipal me = me(root);
    Path current = root;
    checkAbove(current, me);
    Deque<String> names = new ArrayDeque<>();
    push(names, absolute);
    int links = 0;
    while (!names.isEmpty()) {
      String name = names.pop();
      if (name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        current = current.getParent() == null ? current : current.getParent(); // current has no links
        continue;
      }
      Path next = current.resolve(name);
      PosixFileAttributes a = attributesOrCreate(next);
      if (a.isSymbolicLink()) {
        if (++links > MAX_LINKS) {
          throw new IOException("too many links in " + directory);
        }
        Path target = Files.readSymbolicLink(next);
        if (target.isAbsolute()) {
          current = target.getRoot();
        }
        push(names, target);
        continue;
      }
      if (!a.isDirectory()) {
        throw new IOException(next + " is not a directory");
      }
      current = next;
      if (!names.isEmpty()) {
        checkAbove(current, me);
      }
    }
    checkOwn(current, me);
    return current;
  }

  /** Puts the names of {@code path} in front of those still to walk, in order. */
  private static void push(Deque<String> names, Path path) {
    for (int i = path.getNameCount() - 1; i >= 0; i--) {
      names.push(path.getName(i).toString());
    }
  }

  private static PosixFileAttributes attributesOrCreate(Path p) throws IOException {
    try {
      return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      try {
        Files.createDirectory(p, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException raced) {
        // Made meanwhile, by the user or root (the directory above passed): read what is there.
      }
      return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** A directory above the journal's: the user's or root's, and not writable by others unless sticky. */
  private static void checkAbove(Path dir, UserPrincipal me) throws IOException {
    int mode = mode(dir);
    if (!ownedByMeOrRoot(dir, me)) {
      throw new IOException(dir + " is owned by " + Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName()
          + "; another user could replace the journal");
    }
    if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && (mode & STICKY) == 0) {
      throw new IOException(dir + " is writable by " + whoWrites(mode) + " without the sticky bit ("
          + modeString(mode) + "); another user could replace the journal (chmod go-w it, or choose"
          + " another directory)");
    }
  }

  /** The journal's own directory: the user's (or root's, when the user is root), not writable by others. */
  static void checkOwn(Path dir, UserPrincipal me) throws IOException {
    UserPrincipal owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS);
    if (!owner.equals(me)) {
      throw new IOException(dir + " is owned by " + owner.getName() + ", not by " + me.getName()
          + "; another user could read or replace the journal");
    }
    int mode = mode(dir);
    if ((mode & GROUP_OR_OTHERS_WRITE) != 0) {
      throw new IOException(dir + " is writable by " + whoWrites(mode) + " (" + modeString(mode)
          + "); another user could replace the journal (chmod go-w it, or choose another directory)");
    }
  }

  private static boolean ownedByMeOrRoot(Path dir, UserPrincipal me) throws IOException {
    Object uid = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    return Integer.valueOf(0).equals(uid) || Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).equals(me);
  }

  static UserPrincipal me(Path onFileSystem) throws IOException {
    return onFileSystem.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
  }

  static int mode(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
  }

  private static String whoWrites(int mode) {
    return (mode & 0002) != 0 ? "others" : "its group";
  }

  /** {@code rwxrwxrwt} style: the permissions, and {@code t} for a sticky directory's others' execute. */
  private static String modeString(int mode) {
    StringBuilder b = new StringBuilder(9);
    for (int shift = 6; shift >= 0; shift -= 3) {
      b.append((mode >> shift & 4) != 0 ? 'r' : '-').append((mode >> shift & 2) != 0 ? 'w' : '-');
      boolean x = (mode >> shift & 1) != 0;
      b.append(shift == 0 && (mode & STICKY) != 0 ? (x ? 't' : 'T') : x ? 'x' : '-');
    }
    return b.toString();
  }
}
