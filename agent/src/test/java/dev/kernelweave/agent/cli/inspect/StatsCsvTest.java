package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StatsCsvTest {

  @Test
  void aFieldWithACommaQuoteOrLineBreakIsQuotedWithItsQuotesDoubled() {
    assertEquals("main (1)", Stats.csvField("main (1)"));
    assertEquals("\"a,b\"", Stats.csvField("a,b"));
    assertEquals("\"say \"\"hi\"\"\"", Stats.csvField("say \"hi\""));
    assertEquals("\"two\nlines\"", Stats.csvField("two\nlines"));
  }
}
