package dev.kernelweave.interceptor.observe;

import jdk.jfr.Description;
import jdk.jfr.Label;

/**
 * What every JFR event of a call carries: its number in the journal and the function called.
 * Abstract, so that JFR registers only its subclasses ({@link LaunchEvent}, {@link HostWaitEvent}),
 * which inherit these fields.
 */
abstract class CallEvent extends jdk.jfr.Event {

  @Label("Sequence")
  @Description("The call's sequence number in the journal")
  long seq;

  @Label("Call")
  String call;
}
