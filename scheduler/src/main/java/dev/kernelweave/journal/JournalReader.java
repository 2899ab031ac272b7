package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Reads a journal directory's calls in the order they were written, into a record the caller
 * reuses. Read-only: it reads a journal while its writer is running (see {@link #follow}), and one
 * whose writer was killed, up to its last complete record.
 *
 * <p>Not thread-safe: one reader per thread.
 */
public final class JournalReader implements AutoCloseable {

  private static final long FOLLOW_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final Path directory;
  private final SingleChronicleQueue queue;
  private final ExcerptTailer tailer;

  private JournalReader(Path directory, SingleChronicleQueue queue) {
    this.directory = directory;
    this.queue = queue;
    this.tailer = queue.createTailer();
  }

  /**
   * Opens the journal in {@code directory}.
   *
   * @throws NoSuchFileException when the directory does not exist
   * @throws NotDirectoryException when it is not a directory
   * @throws AccessDeniedException when it cannot be read
   * @throws NoJournalException when it holds no journal
   * @throws IOException when Chronicle cannot open what is there
   */
  public static JournalReader open(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      throw new NoSuchFileException(directory.toString(), null, "no such directory");
    }
    if (!Files.isDirectory(directory)) {
      throw new NotDirectoryException(directory.toString());
    }
    if (!Files.isReadable(directory) || !Files.isExecutable(directory)) {
      throw new AccessDeniedException(directory.toString(), null, "cannot read the directory");
    }
    if (!Journals.holdsJournal(directory)) {
      throw new NoJournalException(directory);
    }
    SingleChronicleQueue queue;
    try {
      queue = Journals.readerQueue(directory);
    } catch (RuntimeException | Error e) {
      throw new IOException("cannot open the journal in " + directory + ": "
          + ChronicleLaunchJournal.describe(e), e);
    }
    try {
      return new JournalReader(directory, queue);
    } catch (RuntimeException | Error e) {
      queue.close();
      throw e;
    }
  }

  /** The directory read. */
  public Path directory() {
    return directory;
  }

  /**
   * Reads the next call into {@code into}.
   *
   * @return false when there is no complete record after the last one read (for now)
   * @throws JournalFormatException when the record cannot be decoded
   */
  public boolean next(CallRecord into) {
    try (DocumentContext dc = tailer.readingDocument()) {
      if (!dc.isPresent()) {
        return false;
      }
      try {
        into.readMarshallable(dc.wire().bytes());
      } catch (RuntimeException e) {
        throw new JournalFormatException("unreadable record at index 0x"
            + Long.toHexString(dc.index()) + " in " + directory + ": "
            + ChronicleLaunchJournal.describe(e), e);
      }
      return true;
    }
  }

  /**
   * Reads the next call into {@code into}, waiting for the writer when the journal has no more yet.
   *
   * @return false when the thread was interrupted while waiting (its interrupt status is kept)
   */
  public boolean follow(CallRecord into) {
    while (!next(into)) {
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
      LockSupport.parkNanos(FOLLOW_POLL_NANOS);
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    try {
      tailer.close();
    } finally {
      queue.close();
    }
  }

  /** The directory exists and is readable, but holds no journal files. */
  public static final class NoJournalException extends IOException {
    private static final long serialVersionUID = 1L;

    public NoJournalException(Path directory) {
      super(directory + " holds no journal (no " + Journals.METADATA_FILE + " or *"
          + Journals.DATA_SUFFIX + " files)");
    }
  }
}
