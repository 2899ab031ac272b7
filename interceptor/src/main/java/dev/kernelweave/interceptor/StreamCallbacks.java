package dev.kernelweave.interceptor;

import dev.kernelweave.scheduler.OrderingRules;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCallback;
import jcuda.runtime.cudaStreamCallback;
import jcuda.runtime.cudaStream_t;

/**
 * Stream callbacks ({@code cuStreamAddCallback}, {@code cudaStreamAddCallback}) that the agent
 * enqueues on one of its own streams: CUDA hands the callback the stream it was added to, which
 * must stay the application's stream, not the agent's. Each wrapper is made once per such call,
 * off the launch path, and holds nothing but the application's callback and stream.
 */
public final class StreamCallbacks {

  /** {@link OrderingRules.Rule#CALLBACKS_SEE_APPLICATION_STREAM}: true but in the fuzz's broken agent. */
  private static final boolean TELLS_APPLICATION_STREAM =
      Interception.rules().keeps(OrderingRules.Rule.CALLBACKS_SEE_APPLICATION_STREAM);

  private StreamCallbacks() {}

  /**
   * The callback to hand to the real call: {@code callback} itself when the call runs on the
   * application's stream as written, else one that calls it with {@code appStream}.
   */
  public static CUstreamCallback forApplication(CUstreamCallback callback, CUstream appStream, boolean moved) {
    if (!moved || callback == null || !TELLS_APPLICATION_STREAM) {
      return callback;
    }
    return new OnAppStream(callback, appStream != null ? appStream : new CUstream()); // null: the legacy stream
  }

  /** {@link #forApplication(CUstreamCallback, CUstream, boolean)} for the runtime API. */
  public static cudaStreamCallback forApplication(cudaStreamCallback callback, cudaStream_t appStream,
      boolean moved) {
    if (!moved || callback == null || !TELLS_APPLICATION_STREAM) {
      return callback;
    }
    return new OnAppRuntimeStream(callback, appStream != null ? appStream : new cudaStream_t());
  }

  /**
   * {@link #forApplication(CUstreamCallback, CUstream, boolean)} for advice shared by both APIs,
   * whose arguments are typed dynamically: the callback's type says which API it is.
   */
  public static Object forApplication(Object callback, Object appStream, boolean moved) {
    if (callback instanceof cudaStreamCallback runtime) {
      return forApplication(runtime, (cudaStream_t) appStream, moved);
    }
    return forApplication((CUstreamCallback) callback, (CUstream) appStream, moved);
  }

  /** Calls the application's callback with its own stream in place of the agent's. */
  private record OnAppStream(CUstreamCallback callback, CUstream appStream) implements CUstreamCallback {
    @Override
    public void call(CUstream agentStream, int status, Object userData) {
      callback.call(appStream, status, userData);
    }
  }

  /** {@link OnAppStream} for the runtime API. */
  private record OnAppRuntimeStream(cudaStreamCallback callback, cudaStream_t appStream) implements cudaStreamCallback {
    @Override
    public void call(cudaStream_t agentStream, int status, Object userData) {
      callback.call(appStream, status, userData);
    }
  }
}
