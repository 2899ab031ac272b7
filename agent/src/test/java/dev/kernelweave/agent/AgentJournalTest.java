package dev.kernelweave.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentJournalTest {

  @Test
  void theJdkWarnsAboutUnsafeMemoryAccessFromJava24UnlessTheCommandLineAllowsIt() {
    assertFalse(AgentJournal.unsafeMemoryAccessWarns(17, null));
    assertFalse(AgentJournal.unsafeMemoryAccessWarns(23, null));
    assertTrue(AgentJournal.unsafeMemoryAccessWarns(24, null));
    assertTrue(AgentJournal.unsafeMemoryAccessWarns(25, "warn"));
    assertTrue(AgentJournal.unsafeMemoryAccessWarns(26, "deny"));
    assertFalse(AgentJournal.unsafeMemoryAccessWarns(25, "allow"));
  }
}
