package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where journals go, so that no other local user can read, replace or redirect them.
 *
 * <ul>
 *   <li>The default parent is a new directory under {@code java.io.tmpdir} with an unpredictable
 *       name, created atomically and owner-only ({@link Files#createTempDirectory}).
 *   <li>A parent the user names is used only when it is owned by the user and not writable by
 *       group or others; one that does not exist is created owner-only.
 *   <li>Each run writes into a fresh sub-directory of the parent, {@code run-<yyyyMMdd-HHmmss>-<pid>}
 *       (the time in UTC: asking for the local time zone would set {@code user.timezone} in the
 *       application's system properties; with {@code -n} appended when that name is taken), created atomically (it fails if the
 *       name exists, and it never follows a link) and owner-only: runs never mix, and no one else
 *       can plant a file or a link where the journal's files are created.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class JournalDirectories {

  /** Prefix of a run directory's name. */
  public static final String RUN_PREFIX = "run-";

  private static final Set<PosixFilePermission> SHARED_WRITE =
      Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
  private static final int MAX_SUFFIX = 1000;

  private JournalDirectories() {}

  /** A new owner-only directory under {@code java.io.tmpdir}: {@code kernelweave-<random>}. */
  public static Path createDefaultParent() throws IOException {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    return Journals.posix(tmp)
        ? Files.createTempDirectory(tmp, "kernelweave-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
        : Files.createTempDirectory(tmp, "kernelweave-");
  }

  /**
   * Makes sure {@code parent} is a directory only its owner, the current user, can write: created
   * owner-only if missing (with its missing ancestors), else checked.
   *
   * @return the parent's real path, the one to create runs in
   * @throws IOException with a message that says why the directory cannot be used
   */
  public static Path preparePrivateParent(Path parent) throws IOException {
    Journals.createPrivateDirectory(parent);
    Path real = parent.toRealPath();
    if (!Files.isDirectory(real)) {
      throw new IOException("not a directory");
    }
    if (!Journals.posix(real)) {
      return real;
    }
    PosixFileAttributes attributes = Files.readAttributes(real, PosixFileAttributes.class);
    UserPrincipal me = real.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
    if (!attributes.owner().equals(me)) {
      throw new IOException("owned by " + attributes.owner().getName() + ", not by "
          + me.getName() + "; another user could read or replace the journal");
    }
    if (attributes.permissions().stream().anyMatch(SHARED_WRITE::contains)) {
      throw new IOException("writable by " + (attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)
          ? "others" : "its group") + " (" + PosixFilePermissions.toString(attributes.permissions())
          + "); another user could replace the journal (chmod go-w it, or choose another directory)");
    }
    return real;
  }

  /**
   * Creates this run's directory in {@code parent}: {@code run-<yyyyMMdd-HHmmss>-<pid>[-n]} (UTC),
   * owner-only, atomically (never an existing directory, never through a link).
   */
  public static Path createRun(Path parent) throws IOException {
    return createRun(parent, LocalDateTime.now(ZoneOffset.UTC), ProcessHandle.current().pid());
  }

  static Path createRun(Path parent, LocalDateTime now, long pid) throws IOException {
    String base = RUN_PREFIX + stamp(now) + "-" + pid;
    boolean posix = Journals.posix(parent);
    for (int n = 0; n < MAX_SUFFIX; n++) {
      Path run = parent.resolve(n == 0 ? base : base + "-" + n);
      try {
        return posix
            ? Files.createDirectory(run,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
            : Files.createDirectory(run);
      } catch (FileAlreadyExistsException taken) {
        // Another run of this second and process id (or something planted there): the next name.
      }
    }
    throw new IOException("no free run directory name " + base + "-N in " + parent);
  }

  /**
   * {@code yyyyMMdd-HHmmss}, by hand: a {@code DateTimeFormatter} costs the program's first CUDA
   * call tens of milliseconds of class loading the first time it is built.
   */
  static String stamp(LocalDateTime t) {
    StringBuilder b = new StringBuilder(15);
    pad(b, t.getYear(), 4);
    pad(b, t.getMonthValue(), 2);
    pad(b, t.getDayOfMonth(), 2);
    b.append('-');
    pad(b, t.getHour(), 2);
    pad(b, t.getMinute(), 2);
    pad(b, t.getSecond(), 2);
    return b.toString();
  }

  private static void pad(StringBuilder b, int value, int digits) {
    String s = Integer.toString(value);
    for (int i = s.length(); i < digits; i++) {
      b.append('0');
    }
    b.append(s);
  }

  /** Whether {@code name} is the name of a run directory. */
  public static boolean isRunName(String name) {
    return RunName.PATTERN.matcher(name).matches();
  }

  /** Compiled when a reader first asks, not when the agent's first call creates a run. */
  private static final class RunName {
    static final Pattern PATTERN = Pattern.compile("run-\\d{8}-\\d{6}-\\d+(-\\d+)?");
  }

  /**
   * The run directories in {@code parent} that hold a journal, oldest first (by the time in their
   * names, then by their modification time). Empty when there are none, or {@code parent} is itself
   * a journal.
   */
  public static List<Path> runs(Path parent) throws IOException {
    List<Path> runs = new ArrayList<>();
    try (Stream<Path> entries = Files.list(parent)) {
      for (Path p : (Iterable<Path>) entries::iterator) {
        if (isRunName(p.getFileName().toString()) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
            && Journals.holdsJournal(p)) {
          runs.add(p);
        }
      }
    }
    runs.sort(Comparator.comparing((Path p) -> p.getFileName().toString().substring(0, 19))
        .thenComparing(JournalDirectories::modified)
        .thenComparing(p -> p.getFileName().toString()));
    return runs;
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }
}
