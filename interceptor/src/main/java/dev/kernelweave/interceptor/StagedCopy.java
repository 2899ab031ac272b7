package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;

/**
 * What the enter advice of a synchronous host-to-device copy returns when the agent issued the copy
 * itself from its staging buffers ({@link StagedCopies}): the woven method then skips JCuda's call
 * (the advice names this class in {@code skipOn}) and the exit advice ends {@link #record} with the
 * result the staged copy had, which is success. One per thread, reused; confined to its thread.
 */
public final class StagedCopy {

  /** The call the copy belongs to. */
  public CallRecord record;
}
