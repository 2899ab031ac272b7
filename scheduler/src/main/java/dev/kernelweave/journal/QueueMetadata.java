package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The queue's metadata table ({@link JournalStorage#METADATA_FILE}), checked before a journal is
 * read: the calls do not need it, but a damaged one is said once.
 */
final class QueueMetadata {

  private QueueMetadata() {}

  /**
   * Checks the queue's metadata table: every document in it must lie within the file.
   *
   * @return the damage, or null when it is whole (or absent: the calls do not need it)
   */
  static JournalFormatException damage(Path metadata) {
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
        int length = h & JournalReader.LENGTH_MASK;
        if (length > JournalReader.MAX_DOCUMENT || at == 0 && h != 0 && (h & JournalReader.META_DATA) == 0) {
          return new JournalFormatException(metadata, at, "its table is not well formed", null);
        }
        if (h == 0 || (h & JournalReader.NOT_COMPLETE) != 0) {
          // The end of the table, or an entry its writer is writing (or was killed while writing).
          return null;
        }
        if (at + 4 + length > size) {
          return new JournalFormatException(metadata, at, "the file ends (at byte " + size + ")", null);
        }
        at = (at + 4 + length + 3) & ~3L;
      }
    } catch (IOException e) {
      return new JournalFormatException(metadata, at, "it cannot be read: " + JournalFailures.describe(e), e);
    }
  }
}
