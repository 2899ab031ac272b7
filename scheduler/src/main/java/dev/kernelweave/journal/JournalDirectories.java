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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where journals go, so that no other local user can read, replace or redirect them.
 *
 * <ul>
 *   <li>The default parent is one owner-only directory per user ({@link #defaultParent}), whose
 *       oldest runs {@link JournalRetention} removes.
 *   <li>A parent is used only when it and every directory above it pass {@link SafeDirectories}'
 *       checks; what does not exist is created owner-only.
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

  /** Name of the default journal's directory under the user's state or temporary directory. */
  static final String DEFAULT_NAME = "kernelweave";

  /**
   * The default journal's directory, one per user, checked as {@link #preparePrivateParent} does:
   * {@code $XDG_STATE_HOME/kernelweave}, else {@code ~/.local/state/kernelweave}; where that cannot
   * be used (no home, another owner, a shared directory above it), {@code kernelweave-<user>} in
   * {@code java.io.tmpdir}.
   *
   * @throws IOException when neither can be used, naming both causes
   */
  public static Path defaultParent() throws IOException {
    return defaultParent(System.getenv("XDG_STATE_HOME"), System.getProperty("user.home"),
        System.getProperty("java.io.tmpdir"), System.getProperty("user.name"));
  }

  static Path defaultParent(String stateHome, String home, String tmp, String user) throws IOException {
    Path preferred = stateHome != null && !stateHome.isEmpty() && Path.of(stateHome).isAbsolute()
        ? Path.of(stateHome, DEFAULT_NAME)
        : home == null || home.isEmpty() || home.equals("?") ? null : Path.of(home, ".local", "state", DEFAULT_NAME);
    IOException first = null;
    if (preferred != null) {
      try {
        return preparePrivateParent(preferred);
      } catch (IOException e) {
        first = e;
      }
    }
    try {
      return preparePrivateParent(Path.of(tmp, DEFAULT_NAME + "-" + user));
    } catch (IOException e) {
      if (first != null) {
        e.addSuppressed(first);
        throw new IOException(first.getMessage() + "; and " + e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * Makes sure {@code parent} is a directory no other user can read or swap (see {@link
   * SafeDirectories}): it and every directory above it are the user's or root's and not writable by
   * group or others (sticky ones such as {@code /tmp} excepted above it), links are followed only
   * inside such directories, and what is missing is created owner-only.
   *
   * @return the parent's real path, the one to create runs in
   * @throws IOException with a message that names the directory and says why it cannot be used
   */
  public static Path preparePrivateParent(Path parent) throws IOException {
    return SafeDirectories.prepare(parent);
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
    boolean posix = JournalStorage.posix(parent);
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

  /**
   * Whether the process that wrote the run directory {@code run} has ended, as far as this machine
   * can tell: no process has its id, or the one that has it started after the run was created
   * (the id was reused). False when unknown (not a run directory's name, or a process that may be
   * the writer), so that a reader following the run keeps waiting.
   */
  public static boolean writerEnded(Path run) {
    Matcher m = RunName.PATTERN.matcher(String.valueOf(run.getFileName()));
    if (!m.matches()) {
      return false;
    }
    try {
      long pid = Long.parseLong(m.group(3));
      LocalDateTime created = LocalDateTime.parse(m.group(1) + m.group(2), RunName.TIME);
      java.util.Optional<ProcessHandle> writer = ProcessHandle.of(pid);
      if (writer.isEmpty() || !writer.get().isAlive()) {
        return true;
      }
      java.util.Optional<java.time.Instant> started = writer.get().info().startInstant();
      // The name's time has whole seconds, the process's start finer: a second's slack.
      return started.isPresent() && started.get().isAfter(created.toInstant(ZoneOffset.UTC).plusSeconds(1));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Compiled when a reader first asks, not when the agent's first call creates a run. */
  private static final class RunName {
    static final Pattern PATTERN = Pattern.compile("run-(\\d{8})-(\\d{6})-(\\d+)(-\\d+)?");
    static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
  }

  /**
   * The run directories in {@code parent} that hold a journal, oldest first (by the time in their
   * names, then by their modification time). Empty when there are none, or {@code parent} is itself
   * a journal.
   */
  public static List<Path> runs(Path parent) throws IOException {
    List<Path> runs = new ArrayList<>();
    for (Path p : runDirectories(parent)) {
      if (JournalStorage.holdsJournal(p)) {
        runs.add(p);
      }
    }
    return runs;
  }

  /** Every run directory in {@code parent}, with a journal or not (a run stopped early), oldest first. */
  static List<Path> runDirectories(Path parent) throws IOException {
    List<Path> runs = new ArrayList<>();
    try (Stream<Path> entries = Files.list(parent)) {
      for (Path p : (Iterable<Path>) entries::iterator) {
        if (isRunName(p.getFileName().toString()) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
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
