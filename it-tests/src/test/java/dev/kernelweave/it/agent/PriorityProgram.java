package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.concurrent.CountDownLatch;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Two tenants of one context, told apart only by {@link Thread#setPriority}: a background thread
 * ({@code trainer-0}, {@link Thread#MIN_PRIORITY}) runs {@code spin_scale} steps, and a request
 * thread ({@code request-0}, {@link Thread#MAX_PRIORITY}) serves requests of {@code sum_into}
 * launches with a read-back each. The requests read a buffer the background wrote first (CUDA's
 * legacy stream orders the write before them): a dependency across classes. Prints each thread's
 * results.
 *
 * <p>Usage: {@code PriorityProgram [requests] [steps]}.
 */
public final class PriorityProgram {

  private static final int N = 4096;

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    int steps = args.length > 1 ? Integer.parseInt(args[1]) : 24;
    SmokePrograms.contextOrExit();
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    var module = SmokePrograms.loadSmokeModule();
    CUfunction spinScale = SmokePrograms.function(module, "spin_scale");
    CUfunction sumInto = SmokePrograms.function(module, "sum_into");
    CUdeviceptr shared = upload(1.5f);
    CountDownLatch produced = new CountDownLatch(1);
    String[] results = new String[2];
    Thread background = new Thread(() -> {
      cuCtxSetCurrent(context);
      launch(spinScale, Pointer.to(Pointer.to(shared), Pointer.to(new int[] {N}), Pointer.to(new int[] {7})));
      produced.countDown(); // the launch is queued, not done: the request's reads must still follow it
      CUdeviceptr y = upload(0.25f);
      for (int k = 0; k < steps; k++) {
        launch(spinScale, Pointer.to(Pointer.to(y), Pointer.to(new int[] {N}), Pointer.to(new int[] {40})));
      }
      results[1] = "result background " + SmokePrograms.checksum(download(y));
      cuMemFree(y);
    }, "trainer-0");
    Thread request = new Thread(() -> {
      cuCtxSetCurrent(context);
      try {
        produced.await();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      CUdeviceptr a = upload(1f);
      CUdeviceptr out = upload(0f);
      StringBuilder answers = new StringBuilder();
      float[] answer = new float[1];
      for (int r = 0; r < requests; r++) {
        launch(sumInto, Pointer.to(Pointer.to(out), Pointer.to(a), Pointer.to(shared), Pointer.to(new int[] {N})));
        launch(sumInto, Pointer.to(Pointer.to(a), Pointer.to(out), Pointer.to(shared), Pointer.to(new int[] {N})));
        cuMemcpyDtoH(Pointer.to(answer), a.withByteOffset(4L * (r % N)), 4); // the request's answer
        answers.append(' ').append(answer[0]);
      }
      results[0] = "result requests" + answers + " " + SmokePrograms.checksum(download(a), download(out));
      cuMemFree(a);
      cuMemFree(out);
    }, "request-0");
    background.setPriority(Thread.MIN_PRIORITY);
    request.setPriority(Thread.MAX_PRIORITY);
    background.start();
    request.start();
    background.join();
    request.join();
    System.out.println(results[0]);
    System.out.println(results[1]);
    cuMemFree(shared);
  }

  private static void launch(CUfunction f, Pointer params) {
    cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, null, params, null);
  }

  private static CUdeviceptr upload(float value) {
    float[] host = new float[N];
    for (int i = 0; i < N; i++) {
      host[i] = value + (i % 17) * 0.125f;
    }
    CUdeviceptr d = new CUdeviceptr();
    cuMemAlloc(d, 4L * N);
    cuMemcpyHtoD(d, Pointer.to(host), 4L * N);
    return d;
  }

  private static float[] download(CUdeviceptr d) {
    float[] host = new float[N];
    cuMemcpyDtoH(Pointer.to(host), d, 4L * N);
    return host;
  }
}
