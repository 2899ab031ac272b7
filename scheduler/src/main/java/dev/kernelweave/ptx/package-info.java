/**
 * Read and write sets of CUDA kernels from their PTX.
 *
 * <p>{@link dev.kernelweave.ptx.PtxAnalyzer#analyze(CharSequence)} reads a PTX module and gives,
 * for every {@code .entry}, a {@link dev.kernelweave.ptx.KernelAccessSummary}: per parameter, in
 * order, whether the kernel loads from ({@code R}), stores to ({@code W}), both ({@code RW}) or
 * never addresses ({@code V}) the memory it points to; which of the module's {@code .global} and
 * {@code .const} variables it reads and writes, by name (or any of them, where an access cannot be
 * tied to one); and whether it may touch global memory that neither names ({@code OTHER}). For a
 * parameter whose every access is at the pointer plus a constant, it also gives the extent of bytes
 * touched, relative to the pointer ({@link dev.kernelweave.ptx.ParameterExtent}: {@code W[0,4)} for a
 * kernel that stores one float at {@code reward[0]}); anything else is unbounded.
 * {@link dev.kernelweave.ptx.KernelSummaryCache} analyses each distinct module once;
 * {@link dev.kernelweave.ptx.KernelSummaryFormat} prints summaries.
 *
 * <p>How: a flow-insensitive provenance analysis over the kernel and the {@code .func}s it calls.
 * Each register holds the set of parameters its value may derive from; address arithmetic
 * ({@code add}, {@code mad}, {@code selp}, {@code cvta}...) unites them, a multiplication by a
 * constant turns them into index provenance, values loaded from global memory are of unknown
 * provenance, and local, shared and parameter memory keep what is stored in them. Every load,
 * store and atomic then marks the parameters its address may derive from.
 *
 * <p>Each module variable's address is a provenance of its own, and a parameter's name used as a
 * value (its address in the parameter space, as {@code mov} or {@code cvta.param} take it) may
 * reach every parameter, since they lie side by side there.
 *
 * <p>Extents come from a second fixpoint that knows, of each register, whether it is exactly one
 * parameter plus a constant in an interval ({@code mov}, {@code cvta} to or from global,
 * {@code add}/{@code sub} of an immediate, {@code [reg+imm]} addresses); see {@code ProvenanceAnalysis}.
 *
 * <p>Limits, all on the conservative side: one set per register and per memory region (not per
 * program point, nor per stack slot), so a register reused for two pointers marks both; one set
 * per called function for all its call sites; a 64-bit value loaded from memory and added to a
 * pointer unscaled (a byte array indexed by a 64-bit index) counts as a loaded pointer (OTHER);
 * texture, surface and tensor-map accesses, indirect and external calls, and instructions it does
 * not model count as OTHER; what is stored in a module variable is not followed, so a pointer
 * loaded from one is OTHER. A narrower-than-pointer value (32-bit scalar, 32-bit load) is an index
 * unless pieces are put back together (a 64-bit pack, a 64-bit shift by 8 or more), which is how
 * compiled code rebuilds a pointer.
 *
 * <p>{@link dev.kernelweave.ptx.KernelMerging} generates from a kernel's PTX a merged variant that
 * runs k launches of it (instances) as one, reading each instance's parameters and grid from a
 * device-side {@link dev.kernelweave.ptx.MergedLaunchTable}, or says why it will not
 * ({@link dev.kernelweave.ptx.MergedKernel}).
 */
package dev.kernelweave.ptx;
