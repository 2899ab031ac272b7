package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Where the agent's lines go: stderr by default, the platform's {@link System.Logger} with {@code log=system}. */
class AgentLogTest {

  /** The JDK's default System.Logger is java.util.logging's logger of the same name. */
  private final Logger julLogger = Logger.getLogger(AgentLog.LOGGER_NAME);
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      records.add(r);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

  @BeforeEach
  void captureBoth() {
    AgentLog.forgetWarnings();
    julLogger.addHandler(capture);
    julLogger.setUseParentHandlers(false);
  }

  @AfterEach
  void restore() {
    julLogger.removeHandler(capture);
    julLogger.setUseParentHandlers(true);
    julLogger.setLevel(null);
    AgentLog.configure(AgentLog.Level.INFO, System.err);
    AgentLog.forgetWarnings();
  }

  /** The agent's level, its stream captured, and java.util.logging's logger letting everything through. */
  private void configureWithEverythingLogged(AgentLog.Level level) {
    julLogger.setLevel(Level.ALL);
    AgentLog.configure(level, new PrintStream(stderr, true, StandardCharsets.UTF_8));
  }

  private List<String> messages() {
    return records.stream().map(LogRecord::getMessage).toList();
  }

  @Test
  void systemLevelSendsEachLineToTheSystemLoggerAtItsSeverityAndNothingToTheStream() {
    configureWithEverythingLogged(AgentLog.Level.SYSTEM);
    AgentLog.info("journal: /tmp/run");
    AgentLog.debug("installed in 3 ms");
    AgentLog.warnOnce("k", "the journal cannot be written");
    AgentLog.warnOnce("k", "said once");
    assertEquals(List.of(Level.INFO, Level.FINE, Level.WARNING), records.stream().map(LogRecord::getLevel).toList());
    assertEquals(List.of("journal: /tmp/run", "installed in 3 ms", "the journal cannot be written"), messages());
    assertTrue(AgentLog.debugEnabled());
    assertEquals("", stderr.toString(StandardCharsets.UTF_8));
  }

  @Test
  void systemLevelLeavesFilteringToTheLoggersConfiguration() {
    julLogger.setLevel(Level.INFO);
    AgentLog.configure(AgentLog.Level.SYSTEM, System.err);
    assertFalse(AgentLog.debugEnabled());
    AgentLog.debug("not shown");
    AgentLog.info("shown");
    assertEquals(List.of("shown"), messages());
  }

  @Test
  void defaultLevelWritesPrefixedLinesToTheStreamOnly() {
    configureWithEverythingLogged(AgentLog.Level.INFO);
    AgentLog.info("journal: /tmp/run");
    AgentLog.debug("hidden at info");
    AgentLog.warnOnce("k", "once");
    assertEquals("[kernelweave] journal: /tmp/run\n[kernelweave] warning: once\n",
        stderr.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    assertTrue(records.isEmpty(), "nothing through System.Logger");
  }
}
