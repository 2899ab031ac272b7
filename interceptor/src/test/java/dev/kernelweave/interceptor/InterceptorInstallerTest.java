package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.interceptor.install.JCudaTransformer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.Test;

/**
 * Installs the advice in this JVM, as the agent does, and checks every JCuda class takes it without
 * error. This module's class path has no woven classes from the build, so this is the run-time
 * weaving path; the packaged agent's tests cover the woven-at-build one.
 */
class InterceptorInstallerTest {

  private static final String[] LIBRARIES = {"jcuda.driver.JCudaDriver", "jcuda.runtime.JCuda",
      "jcuda.jcublas.JCublas2", "jcuda.jcublas.JCublas", "jcuda.nvrtc.JNvrtc"};

  @Test
  void everyJCudaLibraryClassIsInstrumentedWithoutLoadingItsNatives() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    AgentLog.configure(AgentLog.Level.DEBUG, new PrintStream(log, true, StandardCharsets.UTF_8));
    Instrumentation jvm = ByteBuddyAgent.install();
    JCudaTransformer transformer = InterceptorInstaller.install(jvm);
    List<Class<?>> loaded = new ArrayList<>();
    try {
      ClassLoader loader = getClass().getClassLoader();
      for (String type : LIBRARIES) {
        loaded.add(Class.forName(type, false, loader));
      }
      String said = log.toString(StandardCharsets.UTF_8);
      for (String type : LIBRARIES) {
        assertTrue(said.contains("instrumented " + type + " (at run time)\n"), type + " not instrumented:\n" + said);
      }
      assertFalse(said.contains("could not instrument"), said);
      assertFalse(said.contains("instrumented jcuda.Pointer"), "only library entry classes are advised");
    } finally {
      jvm.removeTransformer(transformer);
      jvm.retransformClasses(loaded.toArray(new Class<?>[0]));
      AgentLog.configure(AgentLog.Level.INFO, System.err);
    }
  }

  @Test
  void candidatesAreTheLibraryEntryClassesByName() {
    for (String name : new String[] {"jcuda/driver/JCudaDriver", "jcuda/runtime/JCuda", "jcuda/jcublas/JCublas2",
        "jcuda/jcufft/JCufft", "jcuda/nvrtc/JNvrtc"}) {
      assertTrue(JCudaTransformer.isCandidate(name), name);
    }
    for (String name : new String[] {"jcuda/Pointer", "jcuda/driver/CUstream", "jcuda/driver/JCudaDriver$1",
        "jcuda/J", "jcuda//JCuda", "jcuda/driver/J", "jcudax/driver/JCudaDriver", "jcuda/Driver/JCudaDriver",
        "java/lang/String"}) {
      assertFalse(JCudaTransformer.isCandidate(name), name);
    }
  }
}
