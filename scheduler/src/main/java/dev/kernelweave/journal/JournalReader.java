package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Reads a journal directory's calls in the order they were written, into a record the caller
 * reuses. Read-only: it reads a journal while its writer is running (see {@link #follow}), one whose
 * writer was killed (up to its last complete record), and one on a read-only disk.
 *
 * <p>It walks Chronicle Queue's files itself, with plain positional reads and no memory mapping: a
 * file that is truncated, overwritten or shrinks while it is read gives a {@link
 * JournalFormatException} naming the file and where its readable part ends, never a fault of the
 * JVM. A queue file is a sequence of documents, each a 4-byte little-endian header (the length in
 * the low 30 bits, bit 30 for Chronicle's own metadata, bit 31 while the document is being
 * written) and the document, padded to 4 bytes; a zero header is where the writer will write next,
 * and {@code 0xC0000000} ends a file that the queue has rolled past. The files are pre-extended
 * by the writer, so a file that ends before that is damaged. Memory stays bounded: a read window
 * of {@value #WINDOW} bytes, larger only for a larger record (at most {@value #MAX_DOCUMENT}).
 *
 * <p>Not thread-safe: one reader per thread.
 */
public final class JournalReader implements AutoCloseable {

  static final int NOT_COMPLETE = 0x8000_0000;
  static final int META_DATA = 0x4000_0000;
  static final int LENGTH_MASK = 0x3FFF_FFFF;
  static final int END_OF_DATA = NOT_COMPLETE | META_DATA;
  /** No document the agent or Chronicle writes comes near this; a larger length is damage. */
  static final int MAX_DOCUMENT = 16 << 20;
  static final int WINDOW = 1 << 20;
  private static final int SMALL_READ = 4096;

  private static final long FOLLOW_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final Path directory;
  private FileChannel channel;
  private Path file;
  private long position;
  private JournalFormatException damage;
  private JournalFormatException metadataDamage;

  private byte[] window = new byte[WINDOW];
  private Bytes<byte[]> windowBytes = Bytes.wrapForRead(window);
  private long windowStart;
  private int windowLength;
  private int readAhead = SMALL_READ;

  private JournalReader(Path directory) {
    this.directory = directory;
  }

  /**
   * Opens the journal in {@code directory} (a run directory: the files themselves).
   *
   * @throws NoSuchFileException when the directory does not exist
   * @throws NotDirectoryException when it is not a directory
   * @throws AccessDeniedException when it cannot be read
   * @throws NoJournalException when it holds no journal
   * @throws IOException when what is there cannot be read
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
    Journals.startChronicle();
    JournalReader reader = new JournalReader(directory);
    reader.metadataDamage = checkMetadata(directory.resolve(Journals.METADATA_FILE));
    return reader;
  }

  /** The directory read. */
  public Path directory() {
    return directory;
  }

  /**
   * The damage found in the queue's metadata table at open, or null. The calls are read all the
   * same: this reader does not need the table, and {@link #next} does not report it.
   */
  public JournalFormatException metadataDamage() {
    return metadataDamage;
  }

  /**
   * Reads the next call into {@code into}.
   *
   * @return false when there is no complete record after the last one read (for now)
   * @throws JournalFormatException when a file is damaged where the next record should be (again
   *     on every later call), or a record cannot be decoded
   */
  public boolean next(CallRecord into) {
    if (damage != null) {
      throw damage;
    }
    try {
      return nextRecord(into);
    } catch (IOException e) {
      damage = new JournalFormatException(file, position, "it cannot be read: "
          + ChronicleLaunchJournal.describe(e), e);
      throw damage;
    }
  }

  private boolean nextRecord(CallRecord into) throws IOException {
    while (true) {
      if (channel == null && !openFile(nextFile())) {
        return false;
      }
      if (!available(position, 4)) {
        if (fileEnd() == 0 && nextFile() == null) {
          // The newest file, just created by the writer and not yet extended.
          stale();
          return false;
        }
        return damaged("the file ends (at byte " + fileEnd() + ") where a record should start", null);
      }
      int header = windowBytes.readInt(position - windowStart);
      if ((header & LENGTH_MASK) > MAX_DOCUMENT) {
        return damaged("a record header claims " + (header & LENGTH_MASK) + " bytes", null);
      }
      if (position == 0 && header != 0 && header != NOT_COMPLETE && (header & META_DATA) == 0) {
        // NOT_COMPLETE alone (no length yet) is the queue header as its writer begins it, at a roll.
        return damaged("the file does not start with a queue header", null);
      }
      if (header == 0 || (header & NOT_COMPLETE) != 0 && header != END_OF_DATA) {
        // Not written yet, or being written (or its writer was killed while writing it).
        Path later = nextFile();
        if (header == 0 && later != null) {
          openFile(later);
          continue;
        }
        stale();
        return false;
      }
      if (header == END_OF_DATA) {
        Path later = nextFile();
        if (later == null) {
          stale();
          return false;
        }
        openFile(later);
        continue;
      }
      int length = header & LENGTH_MASK;
      if (!available(position + 4, length)) {
        return damaged("the file ends (at byte " + fileEnd() + ") inside a record of " + length + " bytes",
            null);
      }
      long start = position + 4;
      long end = start + length;
      if ((header & META_DATA) == 0) {
        try {
          windowBytes.readPositionRemaining(start - windowStart, length);
          into.readMarshallable(windowBytes);
          if (windowBytes.readRemaining() != 0) {
            throw new IllegalStateException(windowBytes.readRemaining() + " bytes left over");
          }
        } catch (RuntimeException e) {
          return damaged("a record cannot be decoded: " + ChronicleLaunchJournal.describe(e), e);
        }
        position = (end + 3) & ~3L;
        return true;
      }
      position = (end + 3) & ~3L;
    }
  }

  private boolean damaged(String reason, Throwable cause) {
    damage = new JournalFormatException(file, position, reason, cause);
    throw damage;
  }

  private long fileEnd() {
    try {
      return channel.size();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The next data file after the current one, by name (Chronicle's names sort in time order). */
  private Path nextFile() throws IOException {
    String current = file == null ? "" : file.getFileName().toString();
    Path next = null;
    for (Path p : dataFiles(directory)) {
      String name = p.getFileName().toString();
      if (name.compareTo(current) > 0 && (next == null || name.compareTo(next.getFileName().toString()) < 0)) {
        next = p;
      }
    }
    return next;
  }

  static List<Path> dataFiles(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(p -> p.getFileName().toString().endsWith(Journals.DATA_SUFFIX)).sorted().toList();
    }
  }

  private boolean openFile(Path next) throws IOException {
    if (next == null) {
      return false;
    }
    closeChannel();
    file = next;
    position = 0;
    windowLength = 0;
    channel = FileChannel.open(next, StandardOpenOption.READ);
    return true;
  }

  /** The window is out of date: the writer may write there; read it again next time. */
  private void stale() {
    windowLength = 0;
    readAhead = SMALL_READ;
  }

  /** Whether {@code n} bytes from {@code at} are in the file; puts them in the window. */
  private boolean available(long at, int n) throws IOException {
    if (at >= windowStart && at + n <= windowStart + windowLength) {
      return true;
    }
    int size = Math.max(n, readAhead);
    readAhead = Math.min(WINDOW, readAhead * 2);
    if (size > window.length) {
      window = new byte[size];
      windowBytes = Bytes.wrapForRead(window);
    }
    ByteBuffer buffer = ByteBuffer.wrap(window, 0, size).order(ByteOrder.LITTLE_ENDIAN);
    windowStart = at;
    windowLength = 0;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, at + buffer.position());
      if (read < 0) {
        break;
      }
    }
    windowLength = buffer.position();
    return windowLength >= n;
  }

  /**
   * Checks the queue's metadata table: every document in it must lie within the file.
   *
   * @return the damage, or null when it is whole (or absent: the calls do not need it)
   */
  static JournalFormatException checkMetadata(Path metadata) {
    if (!Files.exists(metadata)) {
      return null;
    }
    if (!Files.isRegularFile(metadata)) {
      return new JournalFormatException(metadata, 0, "it is not a file", null);
    }
    long at = 0;
    try (FileChannel ch = FileChannel.open(metadata, StandardOpenOption.READ)) {
      long size = ch.size();
      ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      while (true) {
        header.clear();
        if (at + 4 > size || ch.read(header, at) < 4) {
          return new JournalFormatException(metadata, at, "the file ends (at byte " + size + ")", null);
        }
        int h = header.getInt(0);
        int length = h & LENGTH_MASK;
        if (length > MAX_DOCUMENT || at == 0 && h != 0 && (h & META_DATA) == 0) {
          return new JournalFormatException(metadata, at, "its table is not well formed", null);
        }
        if (h == 0 || (h & NOT_COMPLETE) != 0) {
          // The end of the table, or an entry its writer is writing (or was killed while writing).
          return null;
        }
        if (at + 4 + length > size) {
          return new JournalFormatException(metadata, at, "the file ends (at byte " + size + ")", null);
        }
        at = (at + 4 + length + 3) & ~3L;
      }
    } catch (IOException e) {
      return new JournalFormatException(metadata, at, "it cannot be read: " + ChronicleLaunchJournal.describe(e), e);
    }
  }

  /**
   * Reads the next call into {@code into}, waiting for the writer when the journal has no more yet.
   *
   * @return false when the thread was interrupted while waiting (its interrupt status is kept)
   * @throws JournalFormatException as {@link #next} does
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

  private void closeChannel() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // Read-only: nothing is lost.
      }
      channel = null;
    }
  }

  @Override
  public void close() {
    closeChannel();
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
