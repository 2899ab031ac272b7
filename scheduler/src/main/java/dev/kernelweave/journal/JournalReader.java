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

/**
 * Reads a journal directory's calls in the order they were written, into a record the caller
 * reuses. Read-only: it reads a journal while its writer is running (see {@link #follow}), one whose
 * writer was killed (up to its last complete record), and one on a read-only disk.
 *
 * <p>It walks Chronicle Queue's files itself, with plain positional reads and no memory mapping, and
 * decodes the records without Chronicle ({@link CallRecord#readFrom}), which it never starts: a
 * file that is truncated, overwritten or shrinks while it is read gives a {@link
 * JournalFormatException} naming the file and where its readable part ends, never a fault of the
 * JVM. A queue file is a sequence of documents, each a 4-byte little-endian header (the length in
 * the low 30 bits, bit 30 for Chronicle's own metadata, bit 31 while the document is being
 * written) and the document, padded to 4 bytes; a zero header is where the writer will write next,
 * and {@code 0xC0000000} ends a file that the queue has rolled past. The files are pre-extended
 * by the writer, so a file that ends before that is damaged. Memory stays bounded: a read window
 * of {@value #WINDOW} bytes, larger only for a larger record (at most {@value #MAX_DOCUMENT}), and
 * the pending gaps of {@link SequenceGaps}.
 *
 * <p>A run's first calls may be in its spill file ({@link SpillFile}), framed as a queue file is
 * and read before the queue's files; its end, while its writer appends to it, is where the next
 * call will be, and a record cut there is the journal's end, as the newest queue file's would be.
 *
 * <p>Every way a journal can lose calls is damage: an empty or zeroed file (where its queue header
 * should be), a record marked incomplete with records after it, a call's record marked as queue
 * metadata, and any number missing from the records' sequence (checked across files: a deleted
 * file shows as a gap, and the files its roll cycles would have had are named). The gaps are only
 * known at the end: {@link #gapDamage} says them once the caller has read what it wants. The
 * newest file may be empty, zeroed or end in an incomplete record while its writer runs: {@link
 * #follow} waits there; {@link #next} reports the first two as damage, and the last as the
 * journal's end ({@link #partialEnd}). Special files (FIFOs, devices) are refused, never opened: a
 * FIFO would block the reader forever.
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
  private RunHeader runHeader;
  private RunEnd runEnd;
  private JournalFormatException metadataDamage;
  private final SequenceGaps gaps = new SequenceGaps();
  /** Whether the caller waits for the writer: a newest file being created is then not damage. */
  private boolean following;
  private boolean readInFile;
  private String partialEnd;

  private byte[] window = new byte[WINDOW];
  private ByteBuffer windowBytes = littleEndian(window);
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
    if (!JournalStorage.holdsJournal(directory)) {
      throw new NoJournalException(directory);
    }
    for (Path f : dataFiles(directory)) {
      requireRegularFile(f);
    }
    JournalReader reader = new JournalReader(directory);
    reader.metadataDamage = QueueMetadata.damage(directory.resolve(JournalStorage.METADATA_FILE));
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
    } catch (java.nio.channels.ClosedByInterruptException interrupted) {
      // The thread was interrupted mid-read, which closes the channel: not damage. The interrupt
      // status is kept, and the next call reads the same file again from the same record.
      channel = null;
      stale();
      return false;
    } catch (IOException e) {
      damage = new JournalFormatException(file, position, "it cannot be read: "
          + JournalFailures.describe(e), e);
      throw damage;
    }
  }

  private boolean nextRecord(CallRecord into) throws IOException {
    while (true) {
      if (channel == null && file != null) {
        channel = FileChannel.open(file, StandardOpenOption.READ); // closed by an interrupt
      } else if (channel == null && !openFile(nextFile())) {
        return false;
      }
      int header;
      if (available(position, 4)) {
        header = windowBytes.getInt((int) (position - windowStart));
      } else if (position == 0 && fileEnd() == 0) {
        if (following && nextFile() == null) {
          // The newest file, just created by the writer and not yet extended.
          stale();
          return false;
        }
        return damaged("the file is empty (0 bytes) where its queue header should be", null);
      } else if (position > 0 && isSpill(file)) {
        // The spill file is not extended ahead: its end is where the writer appends next, as a
        // queue file's zero header is (it ends with a mark once the writer has moved on).
        header = 0;
      } else {
        return damaged("the file ends (at byte " + fileEnd() + ") where a record should start", null);
      }
      if ((header & LENGTH_MASK) > MAX_DOCUMENT) {
        return damaged("a record header claims " + (header & LENGTH_MASK) + " bytes", null);
      }
      if (position == 0 && header == 0) {
        if (following && nextFile() == null) {
          stale(); // the newest file, extended but its queue header not begun yet
          return false;
        }
        return damaged("the file is zeroed where its queue header should be", null);
      }
      if (position == 0 && header != NOT_COMPLETE && (header & META_DATA) == 0) {
        // NOT_COMPLETE alone (no length yet) is the queue header as its writer begins it, at a roll.
        return damaged("the file does not start with a queue header", null);
      }
      if (header == 0) {
        // Where the writer would write next. A later file means this one was never ended (its
        // writer stopped) or its end was zeroed: the sequence numbers tell whether calls are missing.
        Path later = nextFile();
        if (later != null) {
          openFile(later);
          continue;
        }
        stale();
        return false;
      }
      if ((header & NOT_COMPLETE) != 0 && header != END_OF_DATA) {
        return incomplete(header);
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
        if (isSpill(file) && nextFile() == null) {
          // The writer is appending it, or was stopped while it did.
          if (!following) {
            partialEnd = "journal ends in a partial record at " + file + " byte " + position
                + " (the writer stopped mid-record)";
          }
          stale();
          return false;
        }
        return damaged("the file ends (at byte " + fileEnd() + ") inside a record of " + length + " bytes",
            null);
      }
      long start = position + 4;
      long end = start + length;
      if ((header & META_DATA) == 0) {
        try {
          decode(start, length, into);
        } catch (RuntimeException e) {
          return damaged("a record cannot be decoded: " + JournalFailures.describe(e), e);
        }
        gaps.seen(into.seq, file, position, !readInFile);
        readInFile = true;
        if (gaps.overflowed()) {
          return damaged("more than " + SequenceGaps.MAX_RANGES + " runs of sequence numbers are missing", null);
        }
        position = (end + 3) & ~3L;
        return true;
      }
      if (position > 0 && readAgentDocument(start, length)) {
        position = (end + 3) & ~3L;
        continue;
      }
      if (position > 0 && isCall(start, length, into)) {
        return damaged("a call's record is marked as queue metadata (header flag bit 30)", null);
      }
      position = (end + 3) & ~3L;
    }
  }

  /** Reads the run's header (the first) or end when the metadata document at {@code start} is one. */
  private boolean readAgentDocument(long start, int length) {
    ByteBuffer document = document(start, length);
    if (runHeader == null && RunHeader.isHeader(document)) {
      runHeader = RunHeader.read(document);
      return true;
    }
    if (RunEnd.isRunEnd(document)) {
      runEnd = RunEnd.read(document);
      return true;
    }
    return false;
  }

  /**
   * How the agent's scheduling of the run went, once {@link #next} has read to the journal's end
   * (it follows the last call); null for a run still being written, one whose writer was killed, or
   * one written before the agent recorded it.
   */
  public RunEnd runEnd() {
    return runEnd;
  }

  /**
   * Which KernelWeave wrote the journal, once {@link #next} has read past the header (it precedes
   * the first call); null for a journal written before headers were, or not read that far.
   */
  public RunHeader runHeader() {
    return runHeader;
  }

  /** Decodes the call in the window at {@code [start, start + length)} of the file. */
  private void decode(long start, int length, CallRecord into) {
    // The window's own buffer, bounded to the record, then whole again: no buffer per record.
    int at = (int) (start - windowStart);
    windowBytes.limit(at + length).position(at);
    try {
      into.readFrom(windowBytes);
      if (windowBytes.hasRemaining()) {
        throw new IllegalStateException(windowBytes.remaining() + " bytes left over");
      }
    } finally {
      windowBytes.clear();
    }
  }

  /** The window's bytes {@code [start, start + length)} of the file, as a buffer of their own. */
  private ByteBuffer document(long start, int length) {
    int at = (int) (start - windowStart);
    return windowBytes.duplicate().limit(at + length).position(at).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  private static ByteBuffer littleEndian(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Whether a metadata document is a call's record: Chronicle's own (index tables, padding) start
   * with a field name or zeros, a call with its format version; only those are decoded.
   */
  private boolean isCall(long start, int length, CallRecord into) {
    if (length == 0) {
      return false;
    }
    byte first = windowBytes.get((int) (start - windowStart));
    if (first < 1 || first > CallRecord.FORMAT_VERSION) {
      return false;
    }
    try {
      decode(start, length, into);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * At a record marked incomplete: its writer is writing it, or stopped while writing it (killed, or
   * its disk filled). That is the journal's end only when nothing follows it.
   */
  private boolean incomplete(int header) throws IOException {
    int length = header & LENGTH_MASK;
    if (position > 0) {
      long after = (position + 4 + length + 3) & ~3L;
      if (length > 0 && available(after, 4) && windowBytes.getInt((int) (after - windowStart)) != 0) {
        return damaged("a record marked incomplete (header flag bit 31) has records after it", null);
      }
      Path later = nextFile();
      if (later != null) {
        return damaged("a record marked incomplete (header flag bit 31) has the file " + later.getFileName()
            + " after it", null);
      }
      if (!following) {
        partialEnd = "journal ends in a partial record at " + file + " byte " + position
            + " (the writer stopped mid-record)";
      }
    }
    stale();
    return false;
  }

  /**
   * Whether every call numbered {@code from} to {@code to} has been read, so that a caller wanting
   * only those may stop: no later record can be one of them.
   */
  public boolean readAll(long from, long to) {
    return gaps.seenAll(from, to);
  }

  /**
   * The one line saying the journal ends in a record its writer did not finish (after {@link #next}
   * returned false), or null when it ends after a whole record.
   */
  public String partialEnd() {
    return partialEnd;
  }

  /**
   * The calls missing between those read (a gap in their sequence numbers), as damage naming the
   * file where the gap is and its first missing number; null when none is missing. Meaningful once
   * the caller has read to the end: a call read out of order may fill a gap later.
   */
  public JournalFormatException gapDamage() {
    SequenceGaps.Gap g = gaps.firstGap();
    if (g == null) {
      return null;
    }
    String which = g.count() == 1 ? "seq " + g.first() + " is missing"
        : "seq " + g.first() + " to " + g.last() + " (" + g.count() + " calls) are missing";
    long total = gaps.missing();
    String others = total > g.count() ? ", " + total + " calls missing in all" : "";
    return new JournalFormatException(g.file(), g.position(),
        which + " before seq " + g.before() + " there" + filesMissingBefore(g) + others, g.first(), null);
  }

  /** For a gap at the start of a file: the files of the roll cycles between it and the one before. */
  private String filesMissingBefore(SequenceGaps.Gap g) {
    if (!g.atFileStart() || isSpill(g.file())) {
      return "";
    }
    try {
      String name = g.file().getFileName().toString();
      String previous = null;
      for (Path p : dataFiles(directory)) {
        String n = p.getFileName().toString();
        if (n.compareTo(name) < 0) {
          previous = n;
        }
      }
      if (previous == null) {
        return "";
      }
      String suffix = JournalStorage.DATA_SUFFIX;
      String a = previous.substring(0, previous.length() - suffix.length());
      String b = name.substring(0, name.length() - suffix.length());
      RollCycleNames cycles = RollCycleNames.of(a, b);
      String missing = cycles == null ? null : cycles.between(a, b, suffix);
      return missing == null ? " (after " + previous + ")"
          : " (after " + previous + "; the file of each roll cycle between is missing: " + missing + ")";
    } catch (IOException e) {
      return "";
    }
  }

  private boolean damaged(String reason, Throwable cause) {
    damage = new JournalFormatException(file, position, reason, gaps.firstMissing(), cause);
    throw damage;
  }

  private long fileEnd() {
    try {
      return channel.size();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The data file after the current one in {@link #dataFiles}' order. */
  private Path nextFile() throws IOException {
    List<Path> files = dataFiles(directory);
    if (file == null) {
      return files.isEmpty() ? null : files.get(0);
    }
    if (isSpill(file)) {
      return files.size() > 1 ? files.get(1) : null;
    }
    String current = file.getFileName().toString();
    for (Path p : files) {
      if (!isSpill(p) && p.getFileName().toString().compareTo(current) > 0) {
        return p;
      }
    }
    return null;
  }

  /**
   * The run's spill file where it has one ({@link SpillFile}: the calls written before the queue
   * was built), then the queue's data files by name (Chronicle's names sort in time order).
   */
  static List<Path> dataFiles(Path directory) throws IOException {
    List<Path> files = new java.util.ArrayList<>();
    Path spill = directory.resolve(JournalStorage.SPILL_FILE);
    if (Files.exists(spill, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      files.add(spill);
    }
    try (Stream<Path> queue = Files.list(directory)) {
      queue.filter(p -> p.getFileName().toString().endsWith(JournalStorage.DATA_SUFFIX)).sorted().forEach(files::add);
    }
    return files;
  }

  private static boolean isSpill(Path p) {
    return p.getFileName().toString().equals(JournalStorage.SPILL_FILE);
  }

  private boolean openFile(Path next) throws IOException {
    if (next == null) {
      return false;
    }
    closeChannel();
    file = next;
    position = 0;
    windowLength = 0;
    readInFile = false;
    requireRegularFile(next);
    channel = FileChannel.open(next, StandardOpenOption.READ);
    return true;
  }

  /** Refuses a FIFO, device or socket named like a queue file: opening a FIFO would block forever. */
  static void requireRegularFile(Path f) throws IOException {
    if (Files.exists(f) && !Files.isRegularFile(f)) {
      throw new NotRegularFileException(f);
    }
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
      windowBytes = littleEndian(window);
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
   * Reads the next call into {@code into}, waiting for the writer when the journal has no more yet.
   *
   * @return false when the thread was interrupted while waiting (its interrupt status is kept), or
   *     when the run's writer has ended ({@link JournalDirectories#writerEnded}) and nothing is left
   * @throws JournalFormatException as {@link #next} does
   */
  public boolean follow(CallRecord into) {
    following = true;
    while (!next(into)) {
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
      if (JournalDirectories.writerEnded(directory)) {
        return next(into); // the run is over: what it wrote is all there is
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

  /** A queue file that is a FIFO, device or socket: refused without opening it. */
  public static final class NotRegularFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotRegularFileException(Path file) {
      super(file + " is not a regular file (a FIFO, device or socket), so it is not read");
    }
  }

  /** The directory exists and is readable, but holds no journal files. */
  public static final class NoJournalException extends IOException {
    private static final long serialVersionUID = 1L;

    public NoJournalException(Path directory) {
      super(directory + " holds no journal (no " + JournalStorage.METADATA_FILE + " or *"
          + JournalStorage.DATA_SUFFIX + " files)");
    }
  }
}
