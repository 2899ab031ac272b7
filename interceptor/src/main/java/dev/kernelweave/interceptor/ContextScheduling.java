package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One CUDA context's scheduler, its streams and the lock that keeps decisions and the real calls in
 * the same order when several application threads launch at once.
 */
final class ContextScheduling {

  final long context;
  final JCudaStreamDevice device;
  final Scheduler scheduler;
  final ReentrantLock lock = new ReentrantLock();

  ContextScheduling(long context, int streams) {
    this.context = context;
    this.device = new JCudaStreamDevice(streams);
    this.scheduler = new Scheduler(device, streams, Mutant.NONE);
  }
}
