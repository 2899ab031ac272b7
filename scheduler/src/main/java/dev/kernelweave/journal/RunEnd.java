package dev.kernelweave.journal;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * What the journal's calls alone cannot tell of how the agent scheduled a run: the calls it let
 * run as written before it engaged (untracked, so not journaled), and why it stopped scheduling for
 * good, where it did (every later call unjournaled too). The last document the writer puts in the
 * queue, as the run ends, in {@link MetadataText}'s form under the first line {@value #FIRST_LINE};
 * a run whose writer was killed has none.
 *
 * @param callsAsWritten calls made as written before the agent engaged, or in all where it never
 *     did; 0 where it tracked every call from the first
 * @param engaged why the agent engaged after calls made as written; empty where it did not wait, or
 *     never engaged
 * @param handedBack why the agent stopped scheduling for good; empty where it did not
 */
public record RunEnd(long callsAsWritten, String engaged, String handedBack) {

  /** The document's first line, which marks it. */
  static final String FIRST_LINE = "kernelweave-run-end";

  private static final byte[] MARK = MetadataText.mark(FIRST_LINE);

  public RunEnd {
    engaged = MetadataText.oneLine(engaged);
    handedBack = MetadataText.oneLine(handedBack);
  }

  /** Whether the agent never engaged, and left every call of the program's device work as written. */
  public boolean neverEngaged() {
    return callsAsWritten > 0 && engaged.isEmpty();
  }

  /** The document's bytes. */
  byte[] document() {
    return MetadataText.document(MARK, "calls-as-written", Long.toString(callsAsWritten), "engaged", engaged,
        "handed-back", handedBack);
  }

  /** Whether the document (the buffer's bytes from its position to its limit) is a run's end. */
  static boolean isRunEnd(ByteBuffer document) {
    return MetadataText.opensWith(document, MARK);
  }

  /** The run's end in the document ({@link #isRunEnd} said it is one). */
  static RunEnd read(ByteBuffer document) {
    Map<String, String> values = MetadataText.values(document);
    long calls;
    try {
      calls = Long.parseLong(values.getOrDefault("calls-as-written", "0"));
    } catch (NumberFormatException e) {
      calls = 0;
    }
    return new RunEnd(calls, values.getOrDefault("engaged", ""), values.getOrDefault("handed-back", ""));
  }
}
