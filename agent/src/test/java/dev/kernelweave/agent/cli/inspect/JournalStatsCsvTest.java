package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JournalStatsCsvTest {

  @Test
  void aFieldWithACommaQuoteOrLineBreakIsQuotedWithItsQuotesDoubled() {
    assertEquals("main (1)", JournalStats.csvField("main (1)"));
    assertEquals("\"a,b\"", JournalStats.csvField("a,b"));
    assertEquals("\"say \"\"hi\"\"\"", JournalStats.csvField("say \"hi\""));
    assertEquals("\"two\nlines\"", JournalStats.csvField("two\nlines"));
  }
}
