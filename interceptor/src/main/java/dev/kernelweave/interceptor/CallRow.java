package dev.kernelweave.interceptor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@code int} parameter of an advice method that receives the id of the intercepted
 * method's row of the {@code CudaCallTable}, found by the method's name when the advice is woven and
 * woven in as a constant ({@link AdviceWeaving}): the advice finds its row by an array index,
 * never by a name.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface CallRow {}
