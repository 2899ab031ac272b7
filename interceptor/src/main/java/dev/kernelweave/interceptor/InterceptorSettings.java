package dev.kernelweave.interceptor;

import dev.kernelweave.journal.LaunchJournal;
import java.util.function.Supplier;

/**
 * What the interceptor needs to know from the agent's options.
 *
 * @param mode schedule or pass through
 * @param streams the agent's streams per CUDA context
 * @param ptx whether kernels' read/write sets come from their PTX
 * @param graphs whether repeated windows of launches are held and replayed as CUDA graphs
 * @param journal opens the journal on the first intercepted call, so that a program that never
 *     touches CUDA gets no directory and no thread
 */
public record InterceptorSettings(Mode mode, int streams, boolean ptx, boolean graphs,
    Supplier<LaunchJournal> journal) {}
