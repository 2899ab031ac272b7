package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import org.junit.jupiter.api.Test;

/** Installs the advice in this JVM, as the agent does, and checks every JCuda class takes it without error. */
class InterceptorInstallerTest {

  @Test
  void everyJCudaLibraryClassIsInstrumentedWithoutLoadingItsNatives() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    AgentLog.configure(AgentLog.Level.DEBUG, new PrintStream(log, true, StandardCharsets.UTF_8));
    Instrumentation jvm = ByteBuddyAgent.install();
    ResettableClassFileTransformer transformer = InterceptorInstaller.install(jvm);
    try {
      ClassLoader loader = getClass().getClassLoader();
      for (String type : new String[] {"jcuda.driver.JCudaDriver", "jcuda.runtime.JCuda", "jcuda.jcublas.JCublas2",
          "jcuda.jcublas.JCublas", "jcuda.nvrtc.JNvrtc"}) {
        Class.forName(type, false, loader);
      }
      String said = log.toString(StandardCharsets.UTF_8);
      for (String type : new String[] {"jcuda.driver.JCudaDriver", "jcuda.runtime.JCuda", "jcuda.jcublas.JCublas2",
          "jcuda.jcublas.JCublas", "jcuda.nvrtc.JNvrtc"}) {
        assertTrue(said.contains("instrumented " + type + "\n"), type + " not instrumented:\n" + said);
      }
      assertFalse(said.contains("could not instrument"), said);
      assertFalse(said.contains("instrumented jcuda.Pointer"), "only library entry classes are advised");
    } finally {
      transformer.reset(jvm, net.bytebuddy.agent.builder.AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
      AgentLog.configure(AgentLog.Level.INFO, System.err);
    }
  }
}
