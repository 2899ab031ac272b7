package dev.kernelweave.selftest;

import dev.kernelweave.sim.SimDevice;
import java.util.List;

/**
 * The simulator with its fault reports hidden: what a real GPU shows, where only the observed
 * bytes tell a correct schedule from a wrong one.
 */
class BytesOnlyTarget implements ProgramTarget {

  static final ProgramTarget.Factory FACTORY = (streams, seed) -> new BytesOnlyTarget(new SimDevice(streams, seed));

  final ProgramTarget target;

  BytesOnlyTarget(ProgramTarget target) {
    this.target = target;
  }

  @Override
  public List<String> faults() {
    return List.of();
  }

  @Override public int streams() { return target.streams(); }
  @Override public long allocDevice(int bytes) { return target.allocDevice(bytes); }
  @Override public void freeDevice(long address) { target.freeDevice(address); }
  @Override public long allocHost(int bytes) { return target.allocHost(bytes); }
  @Override public byte[] readHost(long address, int bytes) { return target.readHost(address, bytes); }

  @Override
  public void launch(int lane, SelfTestKernel kernel, long out, long in1, long in2, int n, int k) {
    target.launch(lane, kernel, out, in1, in2, n, k);
  }

  @Override public void copyHostToDevice(long dst, byte[] src) { target.copyHostToDevice(dst, src); }
  @Override public void copyDeviceToHost(byte[] dst, long src) { target.copyDeviceToHost(dst, src); }

  @Override
  public void copyDeviceToHostAsync(int lane, long hostDst, long src, int bytes) {
    target.copyDeviceToHostAsync(lane, hostDst, src, bytes);
  }

  @Override
  public void copyDeviceToDevice(int lane, long dst, long src, int bytes) {
    target.copyDeviceToDevice(lane, dst, src, bytes);
  }

  @Override public void memset(int lane, long dst, byte value, int bytes) { target.memset(lane, dst, value, bytes); }
  @Override public void synchronizeLane(int lane) { target.synchronizeLane(lane); }
  @Override public void recordAppEvent(int appEvent, int lane) { target.recordAppEvent(appEvent, lane); }
  @Override public void synchronizeAppEvent(int appEvent) { target.synchronizeAppEvent(appEvent); }
  @Override public void createStream(int lane) { target.createStream(lane); }
  @Override public void createEvent(int event) { target.createEvent(event); }
  @Override public void recordEvent(int event, int lane) { target.recordEvent(event, lane); }
  @Override public void waitEvent(int lane, int event) { target.waitEvent(lane, event); }
  @Override public void synchronizeEvent(int event) { target.synchronizeEvent(event); }
  @Override public void waitEventOnAppStream(long appStream, int event) { target.waitEventOnAppStream(appStream, event); }
  @Override public int appStreamLane(long handle) { return target.appStreamLane(handle); }
  @Override public void synchronizeDevice() { target.synchronizeDevice(); }
  @Override public void close() { target.close(); }
  @Override public void callingThread(int thread) { target.callingThread(thread); }
  @Override public void createAppStream(long handle, boolean nonBlocking) { target.createAppStream(handle, nonBlocking); }
  @Override public long registerHost(int bytes) { return target.registerHost(bytes); }
  @Override public void writeHost(long address, byte[] data) { target.writeHost(address, data); }
  @Override public long moduleConstant() { return target.moduleConstant(); }
  @Override public void launchReadingConstant(int lane, long out, int n, int k) { target.launchReadingConstant(lane, out, n, k); }
  @Override public void launchWithoutPtx(int lane, long slot, int n, int k) { target.launchWithoutPtx(lane, slot, n, k); }

  @Override
  public void launchHostFunction(int lane, int gate, long src, long dst, int bytes) {
    target.launchHostFunction(lane, gate, src, dst, bytes);
  }

  @Override public void openGate(int gate) { target.openGate(gate); }

  @Override
  public void copyHostToDeviceAsync(int lane, long dst, long hostSrc, int bytes) {
    target.copyHostToDeviceAsync(lane, dst, hostSrc, bytes);
  }

  @Override public void waitAppEvent(int lane, int appEvent) { target.waitAppEvent(lane, appEvent); }
  @Override public dev.kernelweave.scheduler.GraphDevice graphs() { return target.graphs(); }
  @Override public long function(SelfTestKernel kernel) { return target.function(kernel); }
  @Override public long readsConstantFunction() { return target.readsConstantFunction(); }
  @Override public long withoutPtxFunction() { return target.withoutPtxFunction(); }
}
