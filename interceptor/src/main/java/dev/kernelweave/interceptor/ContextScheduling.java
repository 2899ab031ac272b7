package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.scheduler.Dispatch;
import dev.kernelweave.scheduler.Mutant;

/** One CUDA context's dispatch and the streams and events it issues on. */
final class ContextScheduling {

  final long context;
  final JCudaStreamDevice device;
  final Dispatch dispatch;
  /** Page-locked buffers for staged copies; guarded by the dispatch's lock. */
  final StagingBuffers staging = new StagingBuffers();

  ContextScheduling(long context, int streams) {
    this.context = context;
    this.device = new JCudaStreamDevice(streams);
    this.dispatch = new Dispatch(device, streams, Mutant.NONE);
  }
}
