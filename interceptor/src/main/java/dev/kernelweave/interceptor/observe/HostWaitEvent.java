package dev.kernelweave.interceptor.observe;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Timespan;

/**
 * A call at which the host waited for the GPU: a synchronous copy waiting for the writers of what it
 * reads, a free waiting for the users of its allocation, a barrier or a synchronization. Committed
 * as the call returns, on the application's thread, with its stack trace: where the program waits.
 */
@Name(HostWaitEvent.NAME)
@Label("Host Wait for the GPU")
@Category({"KernelWeave"})
@Description("A call at which the host waited for work on the GPU")
final class HostWaitEvent extends CallEvent {

  static final String NAME = "kernelweave.HostWait";

  @Label("Buffers")
  @Description("What the call waited for, as #allocation+offset[bytes] R|W|RW; empty for a barrier or synchronization")
  String buffers;

  @Label("Allocation")
  @Description("The first allocation waited for; -1 where none")
  int allocation;

  @Label("Narrowed")
  @Description("Whether the wait covered fewer streams than the whole device")
  boolean narrowed;

  @Label("Barrier")
  boolean barrier;

  @Label("Blocked")
  @Description("Host time of the call, the wait for the GPU included")
  @Timespan(Timespan.NANOSECONDS)
  long blocked;
}
