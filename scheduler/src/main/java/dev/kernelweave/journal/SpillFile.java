package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.io.IOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Where the journal's writer puts the calls it takes from the ring before Chronicle's queue is
 * built, written without Chronicle into one file of the run directory, {@value
 * JournalStorage#SPILL_FILE}. Chronicle's start is a few hundred milliseconds of class loading: the
 * program neither waits for it (its calls would otherwise fill the ring and wait there) nor, where
 * it exits before Chronicle has started, pays for it at all.
 *
 * <p>The file is framed as Chronicle's queue files are, so that {@link JournalReader} reads it as
 * the run's first data file: 4-byte little-endian headers (the length, bit 30 for metadata), each
 * document padded to 4 bytes. First a metadata document marking the file (where a queue file has
 * its queue header), then the run's header, the calls, the run's end where the run ended here,
 * and the end-of-file mark {@link JournalReader#END_OF_DATA} once the writer has moved on to the
 * queue or closed. Created rw------- through the run directory's handle, never over an existing
 * file.
 *
 * <p>Not thread-safe: the journal's writer thread alone writes it.
 */
final class SpillFile implements AutoCloseable {

  /** The first line of the document that opens the file. */
  static final String FIRST_LINE = "kernelweave-spill";

  private static final byte[] MARK = MetadataText.mark(FIRST_LINE);
  private static final int INITIAL_BYTES = 64 << 10;
  /** Room asked for before a record is encoded; a larger one overflows the buffer and is redone. */
  private static final int TYPICAL_RECORD = 512;

  private final FileChannel out;
  private ByteBuffer buffer = ByteBuffer.allocate(INITIAL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private boolean ended;

  private SpillFile(FileChannel out) {
    this.out = out;
  }

  /**
   * Creates the spill file in {@code directory} and writes its first documents.
   *
   * @param header the run's header, or null for none
   * @throws IOException when the file exists already or cannot be written
   */
  static SpillFile create(DirectoryHandle directory, RunHeader header) throws IOException {
    directory.verify();
    Path file = directory.access().resolve(JournalStorage.SPILL_FILE);
    Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    FileAttribute<?>[] ownerOnly = JournalStorage.posix(directory.access())
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
        : new FileAttribute<?>[0];
    SpillFile spill = new SpillFile(FileChannel.open(file, options, ownerOnly));
    try {
      spill.metadata(MetadataText.document(MARK));
      if (header != null) {
        spill.metadata(header.document());
      }
      spill.flush();
      return spill;
    } catch (IOException | RuntimeException e) {
      spill.out.close();
      throw e;
    }
  }

  /** Adds a metadata document (the run's end). */
  void metadata(byte[] document) throws IOException {
    room(4 + document.length + 3);
    buffer.putInt(JournalReader.META_DATA | document.length);
    buffer.put(document);
    pad();
  }

  /** Adds a call's record; it reaches the file at the next {@link #flush}. */
  void append(CallRecord record) throws IOException {
    while (true) {
      room(4 + TYPICAL_RECORD);
      int at = buffer.position();
      buffer.position(at + 4);
      try {
        record.writeTo(buffer);
        buffer.putInt(at, buffer.position() - at - 4);
        pad();
        return;
      } catch (BufferOverflowException tooSmall) {
        buffer.position(at);
        if (at > 0) {
          flush(); // and then the whole buffer for this record
        } else {
          grow(buffer.capacity() * 2);
        }
      }
    }
  }

  /** Writes what the buffer holds to the file. */
  void flush() throws IOException {
    buffer.flip();
    while (buffer.hasRemaining()) {
      out.write(buffer);
    }
    buffer.clear();
  }

  /** Marks the file's end ({@link JournalReader#END_OF_DATA}) and writes it out: nothing follows here. */
  void end() throws IOException {
    if (!ended) {
      room(4);
      buffer.putInt(JournalReader.END_OF_DATA);
      flush();
      ended = true;
    }
  }

  @Override
  public void close() throws IOException {
    out.close();
  }

  private void pad() {
    while ((buffer.position() & 3) != 0) {
      buffer.put((byte) 0);
    }
  }

  /** Makes room for {@code n} bytes: writes out what the buffer holds when it has less left. */
  private void room(int n) throws IOException {
    if (buffer.remaining() >= n) {
      return;
    }
    flush();
    if (buffer.capacity() < n) {
      grow(n);
    }
  }

  private void grow(int capacity) {
    if (capacity > JournalReader.MAX_DOCUMENT + 8) {
      throw new IllegalStateException("a call's record is larger than " + JournalReader.MAX_DOCUMENT + " bytes");
    }
    ByteBuffer larger = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    buffer.flip();
    larger.put(buffer);
    buffer = larger;
  }
}
