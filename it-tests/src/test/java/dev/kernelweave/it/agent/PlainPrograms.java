package dev.kernelweave.it.agent;

/** Programs for the agent's tests on machines without a GPU. */
final class PlainPrograms {

  private PlainPrograms() {}

  /** Never touches CUDA; prints a line and exits with the code it is given. */
  public static final class NoCuda {
    public static void main(String[] args) {
      System.out.println("hello from a program without CUDA");
      System.exit(args.length > 0 ? Integer.parseInt(args[0]) : 0);
    }
  }

  /** Loads JCuda's driver class (and its native library), waits the milliseconds it is given, and exits without a CUDA call. */
  public static final class LoadsJCudaOnly {
    public static void main(String[] args) throws Exception {
      Class.forName("jcuda.driver.JCudaDriver");
      Thread.sleep(Long.parseLong(args[0]));
      System.out.println("loaded");
    }
  }

  /** Calls JCuda the way a program would, and prints what happened (on a machine without a GPU, an error). */
  public static final class TouchesJCuda {
    public static void main(String[] args) {
      try {
        jcuda.driver.JCudaDriver.setExceptionsEnabled(true);
        int result = jcuda.driver.JCudaDriver.cuInit(0);
        System.out.println("cuInit returned " + result);
      } catch (Throwable t) {
        System.out.println("cuInit threw " + t.getClass().getName());
      }
    }
  }

  /** Uses its own Caffeine (whatever version is on its class path) while the agent runs. */
  public static final class OwnCaffeine {
    public static void main(String[] args) throws Exception {
      Class<?> caffeine = Class.forName("com.github.benmanes.caffeine.cache.Caffeine");
      Object builder = caffeine.getMethod("newBuilder").invoke(null);
      Object cache = caffeine.getMethod("build").invoke(builder);
      Class<?> cacheType = Class.forName("com.github.benmanes.caffeine.cache.Cache");
      cacheType.getMethod("put", Object.class, Object.class).invoke(cache, "k", "v");
      Object value = cacheType.getMethod("getIfPresent", Object.class).invoke(cache, "k");
      String version = caffeine.getPackage().getImplementationVersion();
      System.out.println("caffeine " + value + " from " + caffeine.getProtectionDomain().getCodeSource().getLocation()
          + " version " + version);
      try {
        jcuda.driver.JCudaDriver.cuInit(0);
      } catch (Throwable t) {
        System.out.println("cuInit threw " + t.getClass().getName());
      }
    }
  }
}
