package dev.kernelweave.agent.cli;

import java.io.PrintStream;
import java.time.ZoneId;

/**
 * Where a command writes and in which zone it shows times: the JVM's streams and zone from {@link
 * Main#main}, buffers and UTC in tests.
 */
record CommandIo(PrintStream out, PrintStream err, ZoneId zone) {}
