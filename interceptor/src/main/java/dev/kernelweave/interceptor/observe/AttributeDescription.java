package dev.kernelweave.interceptor.observe;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What an MXBean attribute counts, on its getter: the description JMX clients (JConsole, JDK Mission
 * Control) show beside the value. Read by {@link DescribedMXBean}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface AttributeDescription {

  /** One sentence: what is counted, and in which unit where it is not a number of calls. */
  String value();
}
