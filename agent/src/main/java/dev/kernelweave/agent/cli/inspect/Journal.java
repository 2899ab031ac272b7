package dev.kernelweave.agent.cli.inspect;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.JournalDirectories;
import dev.kernelweave.journal.JournalFormatException;
import dev.kernelweave.journal.JournalReader;
import dev.kernelweave.journal.RunEnd;
import dev.kernelweave.journal.RunHeader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Opens a journal for a command, turning every way it can fail into one clear line. A damaged file
 * does not stop the command: it reads every call before the damage, and {@link #damage} then names
 * the file and where its readable part ends (the command exits with {@link #DAMAGED}).
 *
 * <p>{@code DIR} is a run directory (the one the agent printed), or a directory holding runs (the
 * agent's {@code journal=DIR}): then the newest run is read, and one line on stderr names the runs
 * there, so that another can be named instead.
 *
 * <p>Not thread-safe.
 */
public final class Journal implements AutoCloseable {

  /** Exit code for an input that cannot be read (the command line's usage code). */
  public static final int UNREADABLE = 2;
  /** Exit code for a damaged journal: what was before the damage was read. */
  public static final int DAMAGED = 3;

  private static final int RUNS_NAMED = 5;

  private final JournalReader reader;
  private final Path directory;
  private JournalFormatException damage;
  /**
   * Whether the command followed the writer, or stopped before the end: the calls in flight then,
   * or not read, are not gaps.
   */
  private boolean partlyRead;

  private Journal(JournalReader reader, Path directory) {
    this.reader = reader;
    this.directory = directory;
  }

  /**
   * Opens the journal in {@code directory}, or the newest run in it.
   *
   * @param notes where the one line naming the runs goes, when {@code directory} holds runs
   */
  public static Journal open(Path directory, PrintStream notes) throws InspectException {
    Path run = resolve(directory, notes);
    try {
      return new Journal(JournalReader.open(run), run);
    } catch (NoSuchFileException e) {
      throw new InspectException(directory + ": no such directory", UNREADABLE);
    } catch (NotDirectoryException e) {
      throw new InspectException(directory + ": not a directory", UNREADABLE);
    } catch (AccessDeniedException e) {
      throw new InspectException(directory + ": cannot read it (permission denied)", UNREADABLE);
    } catch (JournalReader.NoJournalException e) {
      throw new InspectException(e.getMessage() + " and no runs (" + JournalDirectories.RUN_PREFIX
          + "...)", UNREADABLE);
    } catch (IOException | RuntimeException e) {
      throw new InspectException(directory + ": cannot read the journal: " + e.getMessage(), UNREADABLE);
    }
  }

  /** The run to read: {@code directory} itself, or the newest run in it. */
  public static Path resolve(Path directory, PrintStream notes) throws InspectException {
    if (!Files.isDirectory(directory) || holdsFiles(directory)) {
      return directory;
    }
    List<Path> runs;
    try {
      runs = JournalDirectories.runs(directory);
    } catch (IOException e) {
      return directory;
    }
    if (runs.isEmpty()) {
      return directory;
    }
    Path newest = runs.get(runs.size() - 1);
    if (runs.size() > 1) {
      StringBuilder names = new StringBuilder();
      int first = Math.max(0, runs.size() - RUNS_NAMED);
      if (first > 0) {
        names.append(first).append(" older, ");
      }
      for (int i = first; i < runs.size(); i++) {
        names.append(runs.get(i).getFileName()).append(i + 1 < runs.size() ? ", " : "");
      }
      notes.println("kernelweave inspect: " + directory + " holds " + runs.size() + " runs (" + names
          + "); reading the newest, " + newest.getFileName() + " (name a run directory to read another)");
    }
    return newest;
  }

  private static boolean holdsFiles(Path directory) {
    try (var files = Files.list(directory)) {
      return files.anyMatch(p -> {
        String name = p.getFileName().toString();
        return name.endsWith(".cq4") || name.endsWith(".cq4t");
      });
    } catch (IOException e) {
      return true;
    }
  }

  /** The run directory read. */
  public Path directory() {
    return directory;
  }

  /** Which KernelWeave wrote the journal, once a call has been read; null when it did not say. */
  public RunHeader writer() {
    return reader.runHeader();
  }

  /**
   * How the agent's scheduling went where the calls cannot tell, once every call has been read; null
   * where the journal does not say (a run killed, still running, or written before it was recorded).
   */
  public RunEnd runEnd() {
    return reader.runEnd();
  }

  /** Hands every call, in order, to {@code action}; the record passed is reused between calls. */
  public void forEach(Consumer<CallRecord> action) {
    CallRecord record = new CallRecord();
    while (next(record)) {
      action.accept(record);
    }
  }

  /**
   * Whether every call numbered {@code from} to {@code to} has been read; if so the command may stop
   * reading there, and the gaps after them are not looked for.
   */
  public boolean readAll(long from, long to) {
    boolean all = reader.readAll(from, to);
    partlyRead |= all;
    return all;
  }

  /** Reads the next call; false at the end of what has been written, or at damage. */
  public boolean next(CallRecord into) {
    return readUnlessDamaged(reader::next, into);
  }

  /**
   * Reads the next call, waiting for the writer; false once the thread is interrupted, the run's
   * process has ended and every call it wrote was read, or at damage.
   */
  public boolean follow(CallRecord into) {
    partlyRead = true;
    return readUnlessDamaged(reader::follow, into);
  }

  /** One way of reading the next call from the reader. */
  private interface Read {
    boolean next(CallRecord into) throws JournalFormatException;
  }

  /** {@code read} into {@code into}; false, and no read, once damage was met, which it records. */
  private boolean readUnlessDamaged(Read read, CallRecord into) {
    if (damage != null) {
      return false;
    }
    try {
      return read.next(into);
    } catch (JournalFormatException e) {
      damage = e;
      return false;
    }
  }

  /**
   * The damage met, once the command has read to the end: in a data file, else calls missing from
   * the sequence (not after {@link #follow}: calls in flight may still come), else in the queue's
   * table; as the command's one line, or null when there is none.
   */
  public InspectException damage() {
    JournalFormatException e = damage;
    if (e == null && !partlyRead) {
      e = reader.gapDamage();
    }
    if (e == null) {
      e = reader.metadataDamage();
    }
    return e == null ? null : new InspectException(e.getMessage(), DAMAGED);
  }

  /** The one line saying the journal ends in a record its writer did not finish, or null. */
  public String partialEnd() {
    return damage == null ? reader.partialEnd() : null;
  }

  @Override
  public void close() {
    reader.close();
  }
}
