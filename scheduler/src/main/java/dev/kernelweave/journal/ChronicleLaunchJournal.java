package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.StoreFileListener;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * A {@link LaunchJournal} on a Chronicle Queue. {@link #append} copies the call into a slot of a
 * bounded, pre-allocated ring and returns; one daemon thread drains the ring into the queue with
 * its own appender, one document per call.
 *
 * <p>When the ring is full the caller waits until the writer frees a slot: nothing is lost, and
 * {@link #fullWaits} counts how often that happened. When writing fails (an I/O error, a full disk,
 * the free space falling under {@link Builder#minFreeBytes}), the journal says so once through its
 * warning sink, stops, and {@link #append} becomes a no-op: the application goes on.
 *
 * <p>Opening creates the directory, registers Chronicle's shutdown hook on the calling thread (it
 * must be registered before the JVM begins to exit, see {@link JournalStorage#prepareChronicle}) and
 * starts the writer thread. Chronicle starts in the background ({@link
 * JournalStorage#startQueueInBackground}): that takes about a second of a small machine, and
 * neither the application nor the writer waits for it. Every run begins in its spill file ({@link
 * SpillFile}): until Chronicle has started, and while the queue is then built on a thread of its
 * own, the writer drains the ring there; then it writes the later calls to the queue, and a short
 * program's exit never waits for Chronicle (only a close during the queue's build waits for the
 * build). {@link Builder#queueAtOnce} builds the queue first instead. The writer drains the
 * ring at least every few milliseconds, into the spill file or the memory-mapped queue file, which
 * outlive the process: {@code Runtime.halt} or {@code kill -9} lose only what was appended
 * since.
 *
 * <p>The directory is opened once ({@link DirectoryHandle}) and every file is created through that
 * handle, never by a name someone could swap meanwhile; Chronicle's files are made rw------- as
 * they are acquired.
 *
 * <p>Thread-safe. {@link #close} writes what is pending and then closes the queue; it registers no
 * shutdown hook of its own (the agent calls it after the application's hooks, so that a program
 * that exits at once, or calls in its own hooks, still leaves every call it made).
 */
public final class ChronicleLaunchJournal implements LaunchJournal {

  /** Slots in the ring when not configured: about 2 MiB of records. */
  public static final int DEFAULT_RING_CAPACITY = 4096;
  /**
   * Bytes Chronicle maps at a time and grows the file by when not configured. Small next to
   * Chronicle's 64 MiB default, so that a short run leaves small (sparse) files behind.
   */
  public static final long DEFAULT_BLOCK_SIZE = 4L << 20;
  /** Journaling stops when the disk has less free space than this, by default. */
  public static final long DEFAULT_MIN_FREE_BYTES = 64L << 20;

  private static final int OPEN = 0;
  private static final int CLOSING = 1;
  private static final int STOPPED = 2;

  private static final long FREE_SPACE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long MAX_IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
  private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long CLOSE_TIMEOUT_MILLIS = 10_000;

  private final DirectoryHandle directory;
  private final RecordRing ring;
  private final int wakeAt;
  private final RollCycle rollCycle;
  private final long blockSize;
  private final Consumer<String> warn;
  private final FileStore store;
  private final long minFreeBytes;
  private final Runnable housekeeping;
  private final RunHeader header;
  private final BooleanSupplier queueWhen;
  private final boolean queueAtOnce;
  private final Thread writer;
  private final AtomicInteger state = new AtomicInteger(OPEN);
  private final AtomicLong fullWaits = new AtomicLong();
  /** Calls written to the spill file or the queue; the writer thread alone changes it. */
  private volatile long written;
  /**
   * Calls a reader can see: {@link #written} as of the end of the writer's last batch, once the spill
   * file's buffer has reached the file.
   */
  private volatile long readable;
  /** Written after the last call, where {@link #endOfRun} gave one before {@link #close}. */
  private volatile RunEnd runEnd;

  private ChronicleLaunchJournal(Builder b, DirectoryHandle directory, FileStore store) {
    this.directory = directory;
    this.ring = new RecordRing(b.ringCapacity);
    this.wakeAt = Math.max(1, ring.capacity() / 4);
    this.rollCycle = b.rollCycle;
    this.blockSize = b.blockSize;
    this.warn = b.warn;
    this.store = store;
    this.minFreeBytes = b.minFreeBytes;
    this.housekeeping = b.housekeeping;
    this.header = b.header;
    this.queueWhen = b.queueWhen;
    this.queueAtOnce = b.queueAtOnce;
    this.writer = new Thread(new Writer(), "kernelweave-journal");
    writer.setDaemon(true);
    writer.start();
  }

  /** A builder for a journal in {@code directory}, created if missing (rwx------ where POSIX). */
  public static Builder builder(Path directory) {
    return new Builder(directory);
  }

  /** Copies the call into the ring; waits only while the ring is full. Never throws. */
  @Override
  public void append(CallRecord call) {
    if (state.get() != OPEN) {
      return;
    }
    try {
      if (!ring.offer(call)) {
        waitForRoom(call);
      } else if (ring.fill() == wakeAt) {
        // The writer sleeps between batches; a quarter-full ring wakes it, once per batch.
        LockSupport.unpark(writer);
      }
    } catch (Throwable t) {
      stop("stopped", t);
    }
  }

  private void waitForRoom(CallRecord call) {
    fullWaits.incrementAndGet();
    LockSupport.unpark(writer);
    int spins = 0;
    while (state.get() == OPEN && !ring.offer(call)) {
      spins++;
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 256) {
        Thread.yield();
      } else {
        LockSupport.unpark(writer);
        LockSupport.parkNanos(10_000);
      }
    }
  }

  /** Writes what is pending, stops the writer thread and closes the queue. Idempotent. */
  @Override
  public void endOfRun(RunEnd end) {
    runEnd = end;
  }

  @Override
  public void close() {
    state.compareAndSet(OPEN, CLOSING);
    LockSupport.unpark(writer);
    if (Thread.currentThread() != writer) {
      try {
        writer.join(CLOSE_TIMEOUT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The directory the journal writes to. */
  public Path directory() {
    return directory.path();
  }

  /** How many calls found the ring full and had to wait for the writer. */
  public long fullWaits() {
    return fullWaits.get();
  }

  /** How many calls have been written (to the spill file or the queue). */
  public long written() {
    return written;
  }

  /** Whether the journal still accepts calls (not closed, not stopped by an error). */
  public boolean isOpen() {
    return state.get() == OPEN;
  }

  /** The number of slots in the ring. */
  public int ringCapacity() {
    return ring.capacity();
  }

  /**
   * Waits until every call appended before this is called can be read from the journal's files,
   * or the timeout passes.
   *
   * @return whether they could in time (or, where journaling stopped, whether the ring is empty)
   */
  public boolean awaitWritten(long timeout, TimeUnit unit) {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    long appended = ring.claimed();
    while (readable < appended) {
      if (!writer.isAlive()) {
        return ring.isEmpty(); // it wrote what it could, and said why not the rest
      }
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.unpark(writer);
      LockSupport.parkNanos(100_000);
    }
    return true;
  }

  /** Stops journaling and says so once: "kernelweave: journal {@code how}, cannot write to DIR: cause". */
  private void stop(String how, Throwable cause) {
    int s;
    do {
      s = state.get();
      if (s == STOPPED) {
        return;
      }
    } while (!state.compareAndSet(s, STOPPED));
    try {
      warn.accept("kernelweave: journal " + how + ", cannot write to " + directory.path() + ": "
          + JournalFailures.describeWrite(cause, store, Math.max(blockSize, minFreeBytes)));
    } catch (Throwable ignored) {
      // A warning sink that fails must not take the application with it.
    }
  }

  /**
   * Drains the ring into the spill file until the queue is built, then into the queue; the only
   * thread that touches either.
   */
  private final class Writer implements Runnable, Consumer<CallRecord> {
    private SpillFile spill;
    private SingleChronicleQueue queue;
    private ExcerptAppender appender;
    private long nextSpaceCheck;
    /** Builds the queue while this thread goes on writing to the spill file; null until then. */
    private Thread builder;
    private volatile SingleChronicleQueue built;
    private volatile Throwable buildFailure;

    @Override
    public void run() {
      try {
        if (queueAtOnce) {
          openQueue();
        } else {
          spill = SpillFile.create(directory, header);
          JournalStorage.startQueueInBackground();
        }
        checkSpace(System.nanoTime());
      } catch (Throwable t) {
        stop("off", t);
        discardAndClose();
        return;
      }
      if (housekeeping != null) {
        // Here, not on a thread of its own: close() waits for the writer, so it is done by the exit.
        housekeeping.run();
      }
      try {
        long idle = 0;
        while (true) {
          if (appender == null && state.get() == OPEN) {
            if (builder == null && chronicleStarted()) {
              buildQueueInBackground();
            } else if (builder != null && (built != null || buildFailure != null)) {
              switchToQueue();
            }
          }
          int n = 0;
          while (state.get() != STOPPED && ring.poll(this)) {
            n++;
          }
          int s = state.get();
          if (s == STOPPED) {
            break;
          }
          if (n > 0) {
            idle = 0;
            if (appender == null) {
              spill.flush();
            }
            readable = written;
            checkSpace(System.nanoTime());
            if (!directory.throughHandle()) {
              directory.verify(); // by path: a swapped directory stops the journal before its next file
            }
            continue;
          }
          if (s == CLOSING && ring.isEmpty()) {
            writeRunEnd();
            break;
          }
          // Sleep between batches rather than spin: the ring holds milliseconds of calls, and a
          // spinning or often-woken writer takes CPU time from the application's launching thread.
          idle++;
          LockSupport.parkNanos(idle < 4 ? IDLE_PARK_NANOS : MAX_IDLE_PARK_NANOS);
        }
      } catch (Throwable t) {
        stop("stopped", t);
      } finally {
        discardAndClose();
      }
    }

    /**
     * Whether the queue can be built now: Chronicle has started in the background, or that start
     * failed. Building the queue, on a thread of its own, then tries the start once more, and a
     * second failure stops the journal as any failure to open it does; this thread never waits for it.
     */
    private boolean chronicleStarted() {
      return queueWhen.getAsBoolean() || JournalStorage.startFailure() != null;
    }

    /** Builds the queue on this thread and writes the header there: the journal has no spill file. */
    private void openQueue() throws IOException {
      queue = buildQueue();
      appender = queue.createAppender();
      if (header != null) {
        try (DocumentContext dc = appender.writingDocument(true)) {
          dc.wire().bytes().write(header.document());
        }
      }
      directory.ownerOnlyFiles(); // the queue's first data file
    }

    private SingleChronicleQueue buildQueue() throws IOException {
      directory.verify();
      SingleChronicleQueue q = JournalStorage.writerQueue(directory.access(),
          rollCycle == null ? RollCycles.FAST_HOURLY : rollCycle, blockSize, new OwnerOnlyFiles());
      directory.ownerOnlyFiles(); // the queue's table
      return q;
    }

    /**
     * Builds the queue on a thread of its own (a hundred milliseconds or more of a small machine),
     * so that this thread keeps draining the ring meanwhile and the program never waits for it.
     */
    private void buildQueueInBackground() {
      builder = new Thread(() -> {
        try {
          built = buildQueue();
        } catch (Throwable t) {
          buildFailure = t;
        }
      }, "kernelweave-journal-queue");
      builder.setDaemon(true);
      builder.start();
    }

    /** Ends the spill file and goes on in the queue just built (or says why it could not be). */
    private void switchToQueue() throws Throwable {
      if (buildFailure != null) {
        throw buildFailure;
      }
      spill.end();
      queue = built;
      appender = queue.createAppender();
    }

    private void writeRunEnd() throws IOException {
      RunEnd end = runEnd;
      if (end == null) {
        return;
      }
      if (appender == null) {
        spill.metadata(end.document());
        spill.flush();
      } else {
        try (DocumentContext dc = appender.writingDocument(true)) {
          dc.wire().bytes().write(end.document());
        }
      }
    }

    private void discardAndClose() {
      state.set(STOPPED);
      while (ring.discard()) {
        // Producers waiting for room see STOPPED; what is left cannot be written any more.
      }
      if (builder != null && queue == null) {
        // The calls are all in the spill file; the queue being built is closed unused, not cut off.
        try {
          builder.join(CLOSE_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        queue = built;
      }
      try {
        if (spill != null) {
          spill.end();
          spill.close();
        }
      } catch (IOException | RuntimeException ignored) {
        // Closing after a failure; the warning was given.
      }
      closeQuietly();
      try {
        directory.ownerOnlyFiles(); // a file Chronicle made as it closed (the next cycle's)
      } catch (IOException | RuntimeException ignored) {
        // Closing after a failure; the warning was given.
      }
      directory.close();
    }

    @Override
    public void accept(CallRecord record) {
      if (appender == null) {
        try {
          spill.append(record);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      } else {
        try (DocumentContext dc = appender.writingDocument()) {
          record.writeMarshallable(dc.wire().bytes());
        }
      }
      // Counted before the ring frees the slot, so that a drained ring means a counted one too.
      written++;
    }

    private void checkSpace(long now) throws IOException {
      if (store == null || now - nextSpaceCheck < 0) {
        return;
      }
      nextSpaceCheck = now + FREE_SPACE_CHECK_NANOS;
      long free = store.getUsableSpace();
      if (free < minFreeBytes) {
        throw new IOException("disk nearly full, " + free + " bytes free (journaling needs "
            + minFreeBytes + ")");
      }
    }

    private void closeQuietly() {
      closeQuietly(appender);
      closeQuietly(queue);
    }

    private static void closeQuietly(AutoCloseable closeable) {
      try {
        if (closeable != null) {
          closeable.close();
        }
      } catch (Throwable ignored) {
        // Closing after a failure may fail again; the warning was given.
      }
    }
  }

  /**
   * Makes each data file rw------- as Chronicle acquires it (Java has no umask; the directory is
   * owner-only, so no one else can open the file in the moment before), checking first that the
   * directory is still the one opened.
   */
  private final class OwnerOnlyFiles implements StoreFileListener {
    @Override
    public void onAcquired(int cycle, java.io.File file) {
      try {
        directory.verify();
        directory.ownerOnlyFiles(); // the acquired file, and any Chronicle made beside it
      } catch (IOException | RuntimeException e) {
        stop("stopped", e);
      }
    }

    @Override
    public void onReleased(int cycle, java.io.File file) {}
  }

  /** Settings for a {@link ChronicleLaunchJournal}; {@link #open} creates it. */
  public static final class Builder {
    private final Path directory;
    private int ringCapacity = DEFAULT_RING_CAPACITY;
    private long blockSize = DEFAULT_BLOCK_SIZE;
    private long minFreeBytes = DEFAULT_MIN_FREE_BYTES;
    /** Null for the agent's: a new file every hour, named only where a queue is built. */
    private RollCycle rollCycle;
    private Consumer<String> warn = System.err::println;
    private Runnable housekeeping;
    private RunHeader header;
    private BooleanSupplier queueWhen = JournalStorage::queueReady;
    private boolean queueAtOnce;

    private Builder(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
    }

    /** Slots in the ring, rounded up to a power of two. */
    public Builder ringCapacity(int slots) {
      if (slots < 2) {
        throw new IllegalArgumentException("ring capacity must be at least 2: " + slots);
      }
      this.ringCapacity = slots;
      return this;
    }

    /** Bytes Chronicle maps at a time (it raises small values to its own minimum). */
    public Builder blockSize(long bytes) {
      this.blockSize = bytes;
      return this;
    }

    /** How often the queue starts a new file; tests roll every second to cross a roll quickly. */
    Builder rollCycle(RollCycle cycle) {
      this.rollCycle = Objects.requireNonNull(cycle, "rollCycle");
      return this;
    }

    /** Journaling stops, with a warning, when the disk has less free space than this. */
    public Builder minFreeBytes(long bytes) {
      this.minFreeBytes = bytes;
      return this;
    }

    /**
     * Work the writer thread does once the queue is built (removing old runs): the application
     * does not wait for it, and {@link #close} does. It must not throw.
     */
    public Builder housekeeping(Runnable task) {
      this.housekeeping = Objects.requireNonNull(task, "housekeeping");
      return this;
    }

    /** The journal's first document, before any call: which KernelWeave writes it. None by default. */
    public Builder header(RunHeader runHeader) {
      this.header = Objects.requireNonNull(runHeader, "header");
      return this;
    }

    /**
     * Builds the queue at once on the writer thread, starting Chronicle there where it has not
     * started, rather than keeping the calls in the spill file ({@link SpillFile}) until it has
     * started in the background: for a reader of the queue's own files.
     */
    public Builder queueAtOnce() {
      this.queueAtOnce = true;
      return this;
    }

    /**
     * When the writer builds the queue, in the background, while it goes on writing to the spill
     * file: asked between batches. By default once Chronicle has started in the background; tests
     * choose.
     */
    Builder queueWhen(BooleanSupplier ready) {
      this.queueWhen = Objects.requireNonNull(ready, "ready");
      return this;
    }

    /** Where the one warning goes when journaling stops; by default a line on stderr. */
    public Builder warn(Consumer<String> sink) {
      this.warn = Objects.requireNonNull(sink, "warn");
      return this;
    }

    /**
     * Creates the directory, registers Chronicle's shutdown hook on this thread and starts the
     * writer thread, which builds the queue; when that fails the journal warns once and stops.
     *
     * @throws IOException when the directory cannot be created or written
     * @throws IllegalStateException when the JVM is shutting down
     */
    public ChronicleLaunchJournal open() throws IOException {
      JournalStorage.createPrivateDirectory(directory);
      DirectoryHandle handle = DirectoryHandle.open(directory);
      try {
        if (!Files.isWritable(handle.access())) {
          throw new IOException("not writable");
        }
        FileStore store = Files.getFileStore(handle.access());
        JournalStorage.prepareChronicle();
        return new ChronicleLaunchJournal(this, handle, store);
      } catch (IOException | RuntimeException e) {
        handle.close();
        throw e;
      }
    }
  }
}
