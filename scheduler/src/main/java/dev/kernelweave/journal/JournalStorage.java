package dev.kernelweave.journal;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import java.util.TimeZone;
import java.util.stream.Stream;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.announcer.Announcer;
import net.openhft.chronicle.core.internal.announcer.InternalAnnouncer;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.core.shutdown.PriorityHook;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.StoreFileListener;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.internal.AnalyticsHolder;
import net.openhft.chronicle.threads.DiskSpaceMonitor;
import net.openhft.chronicle.wire.BinaryWire;
import net.openhft.chronicle.wire.WireType;
import net.openhft.chronicle.wire.Wires;
import net.openhft.posix.internal.PosixAPIHolder;

/**
 * How the journal is stored: Chronicle Queue's files, its start and its shutdown hook, and the
 * private directories, in one place for the writer and the reader.
 */
final class JournalStorage {

  /** Chronicle's queue files: {@code *.cq4} for data, {@code metadata.cq4t} for the queue's table. */
  static final String DATA_SUFFIX = ".cq4";
  static final String METADATA_FILE = "metadata.cq4t";
  /** The calls written before the queue was built ({@link SpillFile}): read before the queue's. */
  static final String SPILL_FILE = "calls-before-queue.spill";

  private static final String ANALYTICS_OFF = "chronicle.analytics.disable";
  /** Read by Chronicle's {@code DiskSpaceMonitor} as it initializes. */
  static final String DISK_MONITOR_OFF = "chronicle.disk.monitor.disable";
  /** Read by Chronicle's {@code InternalAnnouncer} as it initializes. */
  static final String ANNOUNCER_OFF = "chronicle.announcer.disable";
  private static final String SYSTEM_PROPERTIES = "system.properties";
  private static final String USER_TIMEZONE = "user.timezone";
  private static final String[] TOUCHED = {ANALYTICS_OFF, DISK_MONITOR_OFF, ANNOUNCER_OFF, SYSTEM_PROPERTIES,
      USER_TIMEZONE};

  /** Guards the hook's registration apart from Chronicle's start, which holds the class's lock. */
  private static final Object HOOK = new Object();

  /*
   * Static by nature: they mirror Chronicle's own class initialization and its one JVM shutdown
   * hook, which happen once per JVM whatever the number of journals or copies of the interceptor
   * (this class is shared by every copy: it links no JCuda).
   */
  private static volatile boolean started;
  private static volatile boolean hookRegistered;
  private static volatile boolean queueReady;
  private static volatile Throwable startFailure;
  /** Whether the background start was begun; guarded by {@link #HOOK}. */
  private static boolean starting;

  /**
   * How long after the program loads JCuda (or opens its first journal) Chronicle starts: a program
   * that has ended by then never starts it, and a longer one starts it after its own start rather
   * than beside it. Measured on an H200 (16 cores, {@code CuInitMain}, 15 JVMs each way, twice): a
   * start at once added 212 and 218 ms to the program's start and exit, 300 ms later 99 and 144 ms;
   * {@code cuInit} keeps the cores busy too. Short runs of four workloads were equal within noise.
   */
  static final long START_DELAY_MILLIS = 300;

  private JournalStorage() {}

  /**
   * Makes Chronicle safe to start on another thread, even while the JVM exits; call it at the first
   * CUDA call, on its thread. Chronicle registers one JVM shutdown hook when its classes first
   * initialize; a JVM that has begun to exit refuses new hooks, Chronicle's class initialization
   * then fails, its releaser thread prints a {@code NoClassDefFoundError} trace on the program's
   * stderr, and the journal is lost. That is how short programs lost their whole journal: the
   * queue was first built on the writer thread while the program was already exiting.
   *
   * <p>So the hook is registered here, at once and cheaply (Chronicle's {@code PriorityHook},
   * through its private fields), and the rest starts in the background ({@link
   * #startQueueInBackground}) without the application waiting for it. Where that is not possible (another Chronicle version), all of
   * {@link #startChronicle} runs here instead.
   *
   * @throws IllegalStateException when the JVM is already shutting down
   */
  static void prepareChronicle() {
    if (!started && registerHookOnce() == Hook.IMPOSSIBLE) {
      startChronicle();
    }
  }

  /** What {@link #registerHookOnce} did. */
  private enum Hook { REGISTERED_NOW, NOTHING_TO_DO, IMPOSSIBLE }

  /**
   * Registers Chronicle's shutdown hook unless that was done or Chronicle started; impossible with
   * another Chronicle version. Under its own lock, not the class's: the program's first call must
   * not wait for a start in the background.
   *
   * @throws IllegalStateException when the JVM is already shutting down
   */
  private static Hook registerHookOnce() {
    synchronized (HOOK) {
      if (started || hookRegistered) {
        return Hook.NOTHING_TO_DO;
      }
      hookRegistered = registerShutdownHook();
      return hookRegistered ? Hook.REGISTERED_NOW : Hook.IMPOSSIBLE;
    }
  }

  /**
   * Starts Chronicle ahead of the journal, from the first JCuda class the program loads: registers
   * Chronicle's shutdown hook on this thread, as {@link #prepareChronicle} does, and starts the rest
   * in the background ({@link #startQueueInBackground}). Does nothing where the hook cannot be
   * registered (another Chronicle version, the JVM exiting): the journal then starts Chronicle
   * itself.
   */
  static void startChronicleInBackground() {
    try {
      if (registerHookOnce() == Hook.IMPOSSIBLE) {
        return;
      }
    } catch (IllegalStateException exiting) {
      return;
    }
    startQueueInBackground();
  }

  /**
   * Starts, once per JVM, on a short-lived daemon thread and after {@link #START_DELAY_MILLIS},
   * what the journal's writer needs before it builds its queue ({@link
   * #startChronicleAndQueueClasses}): a few hundred milliseconds, mostly class loading. Until then
   * the writer keeps the calls in its spill file ({@link SpillFile}), so the program waits for none
   * of it; a program that ends within the delay never starts Chronicle, and on a machine of two
   * cores its start is not slowed by it. No file is made. Never throws.
   */
  static void startQueueInBackground() {
    synchronized (HOOK) {
      if (starting || queueReady) {
        return;
      }
      starting = true;
    }
    Thread starter = new Thread(new Runnable() {
      @Override
      public void run() {
        try {
          Thread.sleep(START_DELAY_MILLIS);
          startChronicleAndQueueClasses();
        } catch (Throwable t) {
          startFailure = t;
        }
      }
    }, "kernelweave-journal-start");
    starter.setDaemon(true);
    starter.start();
  }

  /** Whether {@link #startChronicleAndQueueClasses} has run: a queue can be built without waiting. */
  static boolean queueReady() {
    return queueReady;
  }

  /** Why the background start failed, or null (not failed, or not done yet). */
  static Throwable startFailure() {
    return startFailure;
  }

  /** Registers Chronicle's one shutdown hook as its first use would; false where it cannot. */
  private static boolean registerShutdownHook() {
    Thread hook;
    synchronized (PriorityHook.class) { // PriorityHook's own lock: its static methods are synchronized
      try {
        Field registered = PriorityHook.class.getDeclaredField("registeredHook");
        registered.setAccessible(true);
        if (registered.get(null) != null) {
          return true;
        }
        Constructor<PriorityHook> create = PriorityHook.class.getDeclaredConstructor();
        create.setAccessible(true);
        PriorityHook priorityHook = create.newInstance();
        Method thread = PriorityHook.class.getDeclaredMethod("shutdownThread");
        thread.setAccessible(true);
        registered.set(null, priorityHook); // shutdownThread() reads it
        try {
          hook = (Thread) thread.invoke(priorityHook);
          Runtime.getRuntime().addShutdownHook(hook);
        } catch (ReflectiveOperationException | RuntimeException e) {
          registered.set(null, null);
          throw e;
        }
        return true;
      } catch (IllegalStateException shuttingDown) {
        throw new IllegalStateException("the program is exiting");
      } catch (ReflectiveOperationException | RuntimeException e) {
        return false;
      }
    }
  }

  /**
   * Starts Chronicle's process-wide parts on the calling thread, once: its {@code Jvm} class, the
   * {@code BackgroundResourceReleaser} with its thread, and the usage reports' holder. It runs on
   * the journal's start thread once {@link #prepareChronicle} has registered the shutdown hook,
   * else where it is first called (the command line's reader).
   *
   * <p>What Chronicle would otherwise do to the host process is settled here:
   *
   * <ul>
   *   <li>Usage reports: Chronicle sends them to its vendor (and writes a client id in the user's
   *       home) when its analytics library is present, unless {@code chronicle.analytics.disable}
   *       is set. The agent's jar leaves the library out, so no property is needed there; where it
   *       is present the property is set while the classes initialize.
   *   <li>{@code system.properties}: Chronicle copies the entries of a file of that name in the
   *       working directory (or its parent) into the JVM's system properties; the application's
   *       file is not meant for it. Where there is such a file, the property of that name points
   *       at one that does not exist while the classes initialize.
   *   <li>Chronicle's disk space monitor: a thread ({@code disk~space~checker}) that looks at the
   *       free space of each queue's disk every 10 seconds and logs when it runs low. The journal checks
   *       the free space itself and stops with its own warning; the monitor, and the thread that
   *       would outlive the journal, are left out ({@code chronicle.disk.monitor.disable}).
   *   <li>Chronicle's announcement: the lines Chronicle logs as its first queue opens (the JVM, the
   *       process id, its version, read from its jar) go to the agent jar's no-op logger; they are
   *       not composed either ({@code chronicle.announcer.disable}).
   *   <li>Native code: Chronicle loads its POSIX bindings (jnr-ffi, which unpacks a native stub into
   *       the temporary directory and draws warnings on newer JDKs) only for features the journal
   *       does not use; the no-op bindings keep it out.
   * </ul>
   *
   * <p>Chronicle reads those properties only as its classes initialize; they, and {@code
   * user.timezone} (which Chronicle's classes set by asking for the default time zone), are put
   * back as they were right after. An explicit setting by the application wins and stays.
   * Another thread reading the system properties during that second may see those names.
   * Thread-safe.
   *
   * @throws IllegalStateException when the JVM is already shutting down and the hook is not
   *     registered (nothing of Chronicle is touched then)
   */
  static synchronized void startChronicle() {
    if (started) {
      return;
    }
    if (!hookRegistered && shuttingDown()) {
      throw new IllegalStateException("the program is exiting");
    }
    Properties before = (Properties) System.getProperties().clone();
    try {
      if (before.getProperty(ANALYTICS_OFF) == null && analyticsPresent()) {
        System.setProperty(ANALYTICS_OFF, "true");
      }
      if (before.getProperty(DISK_MONITOR_OFF) == null) {
        System.setProperty(DISK_MONITOR_OFF, "true");
      }
      if (before.getProperty(ANNOUNCER_OFF) == null) {
        System.setProperty(ANNOUNCER_OFF, "true");
      }
      if (before.getProperty(SYSTEM_PROPERTIES) == null
          && (Files.exists(Path.of(SYSTEM_PROPERTIES)) || Files.exists(Path.of("..", SYSTEM_PROPERTIES)))) {
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
      // Wires' classes also ask for the default time zone as they initialize: inside this window.
      initialize(WireType.class);
      initialize(BinaryWire.class);
      initialize(Wires.class);
      // Initialized here, inside the window, rather than where the first queue is built.
      initialize(DiskSpaceMonitor.class);
      initialize(Announcer.class);
      initialize(InternalAnnouncer.class);
      started = true;
    } finally {
      restore(before);
    }
  }

  /**
   * Puts back as they were the properties above and the one Chronicle's classes set as they
   * initialize ({@code user.timezone}, by asking for the default time zone). Only these: another
   * thread of the application may set properties of its own meanwhile.
   *
   * <p>The JVM sets {@code user.timezone} once, as it first works out the default time zone, and
   * never again; so where Chronicle made it do so, the default zone is forgotten along with the
   * property ({@code TimeZone.setDefault(null)}), and the application's first look at the time
   * zone works it out, and sets the property, as it would have without the agent.
   */
  private static void restore(Properties before) {
    for (String name : TOUCHED) {
      String old = before.getProperty(name);
      if (name.equals(USER_TIMEZONE) && (old == null || old.isEmpty())
          && !java.util.Objects.equals(old, System.getProperty(name))) {
        TimeZone.setDefault(null);
      }
      if (old == null) {
        System.clearProperty(name);
      } else {
        System.setProperty(name, old);
      }
    }
  }

  /** Whether Chronicle's analytics library is on the class path (as Chronicle itself asks). */
  private static boolean analyticsPresent() {
    try {
      Class.forName("net.openhft.chronicle.analytics.Analytics", false, Jvm.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
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

  /**
   * {@link #startChronicle} and the classes that build a queue: everything of a queue's start that
   * makes no file. Thread-safe.
   */
  static void startChronicleAndQueueClasses() {
    startChronicle();
    initialize(SingleChronicleQueueBuilder.class);
    initialize(SingleChronicleQueue.class);
    queueReady = true;
  }

  static SingleChronicleQueue writerQueue(Path directory, RollCycle rollCycle, long blockSize,
      StoreFileListener files) {
    startChronicle();
    return SingleChronicleQueueBuilder.binary(directory)
        .rollCycle(rollCycle)
        .blockSize(blockSize)
        .storeFileListener(files)
        .build();
  }

  /** Whether {@code directory} holds a journal: a queue's metadata table, a data file or a spill file. */
  static boolean holdsJournal(Path directory) throws IOException {
    if (Files.exists(directory.resolve(METADATA_FILE)) || Files.exists(directory.resolve(SPILL_FILE))) {
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
