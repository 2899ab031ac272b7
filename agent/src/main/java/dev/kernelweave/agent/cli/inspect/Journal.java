package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.JournalFormatException;
import dev.kernelweave.journal.JournalReader;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** Opens a journal directory for a command, turning every way it can fail into one clear line. */
public final class Journal implements AutoCloseable {

  /** Exit code for an input that cannot be read (the command line's usage code). */
  public static final int UNREADABLE = 2;

  private final JournalReader reader;
  private final Path directory;

  private Journal(JournalReader reader, Path directory) {
    this.reader = reader;
    this.directory = directory;
  }

  public static Journal open(Path directory) throws InspectException {
    try {
      return new Journal(JournalReader.open(directory), directory);
    } catch (NoSuchFileException e) {
      throw new InspectException(directory + ": no such directory", UNREADABLE);
    } catch (NotDirectoryException e) {
      throw new InspectException(directory + ": not a directory", UNREADABLE);
    } catch (AccessDeniedException e) {
      throw new InspectException(directory + ": cannot read it (permission denied)", UNREADABLE);
    } catch (JournalReader.NoJournalException e) {
      throw new InspectException(e.getMessage(), UNREADABLE);
    } catch (IOException | RuntimeException e) {
      throw new InspectException(directory + ": cannot read the journal: " + e.getMessage(), UNREADABLE);
    }
  }

  public Path directory() {
    return directory;
  }

  /** Hands every call, in order, to {@code action}; the record passed is reused between calls. */
  public void forEach(Consumer<CallRecord> action) throws InspectException {
    CallRecord record = new CallRecord();
    while (next(record)) {
      action.accept(record);
    }
  }

  /** Reads the next call; false at the end of what has been written. */
  public boolean next(CallRecord into) throws InspectException {
    try {
      return reader.next(into);
    } catch (JournalFormatException e) {
      throw new InspectException(e.getMessage(), UNREADABLE);
    }
  }

  /** Reads the next call, waiting for the writer; false once the thread is interrupted. */
  public boolean follow(CallRecord into) throws InspectException {
    try {
      return reader.follow(into);
    } catch (JournalFormatException e) {
      throw new InspectException(e.getMessage(), UNREADABLE);
    }
  }

  @Override
  public void close() {
    reader.close();
  }
}
