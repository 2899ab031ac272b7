package dev.kernelweave.interceptor.observe;

import jdk.jfr.DataAmount;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One call that put work on the GPU (a launch, copy, memset or cuBLAS routine) and where the agent
 * put it. Committed as the call returns, on the application's thread; {@link #callDuration} is the
 * call's host time. No stack trace by default: these are frequent.
 */
@Name(LaunchEvent.NAME)
@Label("GPU Work")
@Category({"KernelWeave"})
@Description("A kernel launch, copy, memset or cuBLAS call and the stream the agent ran it on")
@StackTrace(false)
final class LaunchEvent extends CallEvent {

  static final String NAME = "kernelweave.Launch";

  @Label("Kernel")
  @Description("The kernel's name; empty for copies and memsets")
  String kernel;

  @Label("Grid")
  @Description("Grid dimensions x,y,z")
  String grid;

  @Label("Block")
  @Description("Block dimensions x,y,z")
  String block;

  @Label("Bytes")
  @Description("Bytes copied or set")
  @DataAmount
  long bytes;

  @Label("Agent Stream")
  @Description("The agent's stream the call ran on; -1 where it kept the application's")
  int agentStream;

  @Label("Application Stream")
  @Description("The stream handle the application asked for: 0 the default stream")
  long applicationStream;

  @Label("Cross-Stream Waits")
  @Description("Events of other streams the call was made to wait for")
  int crossStreamWaits;

  @Label("Event Recorded")
  @Description("Whether an event was recorded after the call for a consumer on another stream")
  boolean eventRecorded;

  @Label("Host Waited")
  boolean hostWaited;

  @Label("Barrier")
  boolean barrier;

  @Label("Call Duration")
  @Description("Host time of the call")
  @Timespan(Timespan.NANOSECONDS)
  long callDuration;

  @Label("Result")
  @Description("The CUDA result code; -2147483648 where the call threw")
  int result;
}
