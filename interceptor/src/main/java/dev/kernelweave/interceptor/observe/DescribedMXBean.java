package dev.kernelweave.interceptor.observe;

import java.lang.reflect.Method;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.StandardMBean;

/**
 * An MXBean whose attributes carry the {@link AttributeDescription} of their getters, and the bean
 * its own description, instead of JMX's generic "Attribute exposed for management".
 */
final class DescribedMXBean<T> extends StandardMBean {

  private final Class<T> type;
  private final String description;

  DescribedMXBean(T implementation, Class<T> type, String description) {
    super(implementation, type, true);
    this.type = type;
    this.description = description;
  }

  @Override
  protected String getDescription(MBeanInfo info) {
    return description;
  }

  @Override
  protected String getDescription(MBeanAttributeInfo info) {
    AttributeDescription d = getter(info);
    return d == null ? super.getDescription(info) : d.value();
  }

  private AttributeDescription getter(MBeanAttributeInfo info) {
    for (String prefix : new String[] {"get", "is"}) {
      try {
        Method m = type.getMethod(prefix + info.getName());
        return m.getAnnotation(AttributeDescription.class);
      } catch (NoSuchMethodException e) {
        // Try the other prefix.
      }
    }
    return null;
  }
}
