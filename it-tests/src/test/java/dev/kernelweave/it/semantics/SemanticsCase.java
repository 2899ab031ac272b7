package dev.kernelweave.it.semantics;

import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.SmokePrograms;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ten sequences of CUDA semantics the agent must keep (issue 8), each a program and a variant,
 * with the agent options it needs, and how a test runs one in a child JVM.
 */
enum SemanticsCase {
  SYNC_COPY_COMPLETES_EARLIER_LEGACY_STREAM_WORK(LegacySyncCopyProgram.class, "legacy", ""),
  SYNC_COPY_COMPLETES_EARLIER_BLOCKING_STREAM_WORK(LegacySyncCopyProgram.class, "blocking", ""),
  CONSTANT_WRITTEN_AFTER_A_LAUNCH_IS_NOT_SEEN_BY_IT(ConstantMemoryProgram.class, "constant", ""),
  KERNEL_WITHOUT_PTX_ANALYSIS_IS_ORDERED_BEFORE_A_READ(IndirectWriteProgram.class, "ptx", ",ptx=off"),
  CUBIN_KERNEL_IS_ORDERED_BEFORE_A_READ(IndirectWriteProgram.class, "cubin", ""),
  FATBIN_KERNEL_IS_ORDERED_BEFORE_A_READ(IndirectWriteProgram.class, "fatbin", ""),
  A_CUBIN_KERNEL_LOADED_AFTER_A_PTX_MODULES_UNLOAD(IndirectWriteProgram.class, "cubin-after-unload", ""),
  A_FATBIN_KERNEL_LOADED_AFTER_A_PTX_MODULES_UNLOAD(IndirectWriteProgram.class, "fatbin-after-unload", ""),
  LEGACY_AND_PER_THREAD_STREAM_HANDLES(StreamHandlesProgram.class, "handles", ""),
  REGISTERED_HOST_MEMORY_KEEPS_STREAM_ORDER(RegisteredMemoryProgram.class, "registered", ""),
  HOST_FUNCTION_ENQUEUE_DOES_NOT_BLOCK(HostFunctionProgram.class, "hostfunc", ""),
  CAPTURED_WORK_RUNS_ONLY_AS_A_GRAPH(GraphCaptureProgram.class, "capture", ""),
  QUERIES_ANSWER_NOT_READY_AT_ONCE(StreamQueryProgram.class, "query", ""),
  NEW_WORK_AFTER_A_PRIMARY_CONTEXT_RESET(ContextResetProgram.class, "reset", ""),
  THREADS_LAUNCH_WHILE_ONE_IS_BLOCKED_IN_A_COPY(BlockedThreadProgram.class, "threads", ""),
  STAGED_COPY_FROM_A_REUSED_ARRAY(StagedCopyProgram.class, "staged", ""),
  KERNELS_THAT_PRINT_KEEP_STREAM_ORDER(PointerProgram.class, "printf", ""),
  POINTER_AT_OFFSET_FOUR_OF_A_PACKED_STRUCT(PointerProgram.class, "packed", ""),
  END_POINTER_OF_ONE_ALLOCATION_AT_THE_START_OF_THE_NEXT(PointerProgram.class, "end", ""),
  ADDRESS_FROM_THE_DIFFERENCE_OF_TWO_POINTERS(PointerProgram.class, "difference", ""),
  A_LAUNCH_AFTER_A_STICKY_ERROR_RETURNS_IT(HeldLaunchProgram.class, "sticky", ""),
  A_FAULT_OF_A_HELD_LAUNCH_REACHES_A_QUERY(HeldLaunchProgram.class, "query", ""),
  A_LAUNCH_AFTER_AN_ATTRIBUTE_CHANGE_RETURNS_ITS_ERROR(HeldLaunchProgram.class, "attribute", ""),
  NEW_WORK_AFTER_THE_PRIMARY_CONTEXTS_LAST_RELEASE(HeldLaunchProgram.class, "release", ""),
  HELD_LAUNCHES_RUN_BEFORE_ANOTHER_THREAD_ENDS_THE_CONTEXT(HeldLaunchProgram.class, "thread-release", ""),
  A_PEER_COPY_FINDS_WHAT_THE_OTHER_CONTEXT_HELD_DONE(HeldLaunchProgram.class, "peer", ""),
  PAGEABLE_ASYNC_READ_RETURNS_IN_STREAM_ORDER(StreamOrderProgram.class, "pageable-read", ""),
  STREAM_CALLBACK_RECEIVES_ITS_STREAM(StreamOrderProgram.class, "callback", ""),
  IDLE_BLOCKING_STREAM_QUERY_AFTER_LEGACY_WORK(StreamOrderProgram.class, "query-idle", ""),
  STREAM_QUERY_AFTER_A_PAGEABLE_SYNC_COPY(StreamOrderProgram.class, "query-after-copy", ""),
  STREAM_QUERY_AFTER_A_LEGACY_STREAM_SYNCHRONIZE(StreamOrderProgram.class, "query-after-legacy-sync", ""),
  TIMING_EVENTS_BRACKET_THE_WORK_BETWEEN_THEM(StreamOrderProgram.class, "timing", ""),
  LEGACY_TIMING_EVENTS_BRACKET_A_BLOCKING_STREAMS_WORK(StreamOrderProgram.class, "legacy-timing", ""),
  WORK_BESIDE_A_CAPTURE_STAYS_IN_STREAM_ORDER(StreamOrderProgram.class, "capture-other-stream", ""),
  ALLOCATION_RANGES_HAVE_THE_SIZE_ASKED_FOR(AllocationProgram.class, "range", ""),
  THE_BYTE_PAST_AN_ALLOCATION_IS_NOT_IN_ITS_RANGE(AllocationProgram.class, "past", ""),
  EVENTS_ARE_COMPLETE_AFTER_A_PAGEABLE_SYNC_COPY(StreamOrderProgram.class, "event-after-copy", ""),
  // CUDA's free "may" synchronize: the stand-in's then waits only for the legacy and blocking streams.
  A_FREE_BESIDE_A_CAPTURE_FOLLOWS_ITS_USERS(StreamOrderProgram.class, "free-beside-capture", "",
      Map.of("KW_CPU_DEVICE_FREE", "legacy")),
  A_STREAM_WAITS_FOR_A_VALUE_WRITTEN_AFTER_THE_WAIT(DeviceMemoryKindsProgram.class, "wait-then-write", ""),
  A_STREAM_WAITS_FOR_A_VALUE_WRITTEN_BEFORE_THE_WAIT(DeviceMemoryKindsProgram.class, "write-then-wait", ""),
  MAPPED_MEMORY_READ_AFTER_AN_EVENT_QUERY(DeviceMemoryKindsProgram.class, "mapped-query", ""),
  ANOTHER_THREAD_WAITS_FOR_THE_EVENT(DeviceMemoryKindsProgram.class, "threads-event", ""),
  A_HOST_FUNCTION_WAITS_WHILE_ANOTHER_STREAM_READS_BACK(DeviceMemoryKindsProgram.class, "host-function-waits", ""),
  THREADS_GO_ON_WHERE_THE_AGENT_STOPS_SCHEDULING(DeviceMemoryKindsProgram.class, "wait-beside-threads", ""),
  A_SYNCHRONIZE_WAITS_FOR_NO_BARRIER_QUEUED_AFTER_ITS_WORK(DeviceMemoryKindsProgram.class, "barrier-beside-host-function", ""),
  A_BLOCKING_STREAM_HANDED_BACK_WAITS_FOR_ITS_WORK_ALONE(DeviceMemoryKindsProgram.class, "hand-back-blocking", ""),
  A_PER_THREAD_STREAM_HANDED_BACK_WAITS_FOR_ITS_WORK_ALONE(DeviceMemoryKindsProgram.class, "hand-back-per-thread", ""),
  THREADS_CONTENDING_FOR_ONE_CONTEXT_KEEP_THEIR_RESULTS(ContendingThreadsProgram.class, "contending", ""),
  // Each of these also with engage=auto, which they make engage by a run of 16 launches first.
  A_HOST_FUNCTION_ON_A_BLOCKING_STREAM_HOLDS_BACK_NO_OTHER(BlockingStreamsProgram.class, "host-function-blocking", ""),
  A_HOST_FUNCTION_ON_A_BLOCKING_STREAM_HOLDS_BACK_NO_OTHER_AUTO(BlockingStreamsProgram.class, "host-function-blocking",
      ",engage=auto"),
  A_CALLBACK_ON_A_BLOCKING_STREAM_HOLDS_BACK_NO_PER_THREAD_STREAM(BlockingStreamsProgram.class, "callback-blocking", ""),
  A_CALLBACK_ON_A_BLOCKING_STREAM_HOLDS_BACK_NO_PER_THREAD_STREAM_AUTO(BlockingStreamsProgram.class,
      "callback-blocking", ",engage=auto"),
  A_WAIT_IS_FOR_THE_RECORD_BEFORE_IT(BlockingStreamsProgram.class, "event-rerecord", ""),
  A_WAIT_IS_FOR_THE_RECORD_BEFORE_IT_AUTO(BlockingStreamsProgram.class, "event-rerecord", ",engage=auto"),
  PER_THREAD_STREAMS_OF_FOUR_THREADS(BlockingStreamsProgram.class, "per-thread-threads", ""),
  PER_THREAD_STREAMS_OF_FOUR_THREADS_AUTO(BlockingStreamsProgram.class, "per-thread-threads", ",engage=auto"),
  CONTEXT_SYNCHRONIZE_ON_ANOTHER_THREAD_COMPLETES_MAPPED_WRITES(BlockingStreamsProgram.class, "ctx-sync-other-thread", ""),
  CONTEXT_SYNCHRONIZE_ON_ANOTHER_THREAD_COMPLETES_MAPPED_WRITES_AUTO(BlockingStreamsProgram.class,
      "ctx-sync-other-thread", ",engage=auto"),
  MAPPED_MEMORY_AFTER_STREAM_EVENT_AND_CONTEXT_SYNCHRONIZE(BlockingStreamsProgram.class, "mapped-syncs", ""),
  MAPPED_MEMORY_AFTER_STREAM_EVENT_AND_CONTEXT_SYNCHRONIZE_AUTO(BlockingStreamsProgram.class, "mapped-syncs",
      ",engage=auto"),
  AN_UPLOAD_READS_WHAT_A_HOST_FUNCTION_WROTE(BlockingStreamsProgram.class, "host-function-upload", ""),
  AN_UPLOAD_READS_WHAT_A_HOST_FUNCTION_WROTE_AUTO(BlockingStreamsProgram.class, "host-function-upload", ",engage=auto"),
  TWO_CONTEXTS_PUSHED_AND_POPPED(ContextsProgram.class, "push-pop", ""),
  TWO_CONTEXTS_PUSHED_AND_POPPED_AUTO(ContextsProgram.class, "push-pop", ",engage=auto"),
  TWO_CONTEXTS_ON_TWO_THREADS(ContextsProgram.class, "two-threads", ""),
  TWO_CONTEXTS_ON_TWO_THREADS_AUTO(ContextsProgram.class, "two-threads", ",engage=auto"),
  EACH_CONTEXTS_STREAM_SYNCHRONIZED_FROM_ANOTHER_CONTEXT(ContextsProgram.class, "each-stream-synchronized", ""),
  EACH_CONTEXTS_STREAM_SYNCHRONIZED_FROM_ANOTHER_CONTEXT_AUTO(ContextsProgram.class, "each-stream-synchronized",
      ",engage=auto"),
  OVERLAPPING_BYTE_RANGES_OF_ONE_ALLOCATION_ON_ONE_STREAM(ByteRangesProgram.class, "one-stream", ""),
  OVERLAPPING_BYTE_RANGES_OF_ONE_ALLOCATION_ON_ONE_STREAM_AUTO(ByteRangesProgram.class, "one-stream", ",engage=auto"),
  NEIGHBOURING_BYTE_RANGES_ON_TWO_STREAMS(ByteRangesProgram.class, "two-streams", ""),
  NEIGHBOURING_BYTE_RANGES_ON_TWO_STREAMS_AUTO(ByteRangesProgram.class, "two-streams", ",engage=auto"),
  LEGACY_ROUND_TRIPS_BESIDE_A_WAITING_HOST_FUNCTION(BlockingStreamsProgram.class, "host-function-legacy-copies", ""),
  LEGACY_ROUND_TRIPS_BESIDE_A_WAITING_HOST_FUNCTION_AUTO(BlockingStreamsProgram.class, "host-function-legacy-copies",
      ",engage=auto"),
  A_STREAM_IS_IDLE_AFTER_ITS_LAST_RECORD_IS_SYNCHRONIZED(BlockingStreamsProgram.class, "query-after-event-sync", ""),
  A_STREAM_IS_IDLE_AFTER_ITS_LAST_RECORD_IS_SYNCHRONIZED_AUTO(BlockingStreamsProgram.class, "query-after-event-sync",
      ",engage=auto"),
  ASYNC_UPLOADS_FROM_A_REUSED_JAVA_ARRAY(BlockingStreamsProgram.class, "pageable-async-upload", ""),
  ASYNC_UPLOADS_FROM_A_REUSED_JAVA_ARRAY_AUTO(BlockingStreamsProgram.class, "pageable-async-upload", ",engage=auto"),
  AN_APPLICATION_GRAPH_BETWEEN_PLAIN_LAUNCHES(BlockingStreamsProgram.class, "app-graph", ""),
  AN_APPLICATION_GRAPH_BETWEEN_PLAIN_LAUNCHES_AUTO(BlockingStreamsProgram.class, "app-graph", ",engage=auto"),
  DEVICE_SCALARS_OF_A_GEMM_WRITTEN_BY_A_KERNEL(BlasScalarsProgram.class, "device-scalars", ""),
  DEVICE_SCALARS_OF_A_GEMM_WRITTEN_BY_A_KERNEL_AUTO(BlasScalarsProgram.class, "device-scalars", ",engage=auto"),
  DEVICE_POINTER_MODE_SET_BEFORE_THE_ENGAGEMENT(BlasScalarsProgram.class, "device-scalars-early", ",engage=auto"),
  DEVICE_SCALARS_OF_A_GEMM_AFTER_AN_EVENT_WAIT(BlasScalarsProgram.class, "device-scalars-event", ""),
  DEVICE_SCALARS_OF_A_GEMM_AFTER_AN_EVENT_WAIT_AUTO(BlasScalarsProgram.class, "device-scalars-event", ",engage=auto"),
  REFUSED_LAUNCHES_AMONG_HELD_ONES(ErrorsProgram.class, "bad-launch", ""),
  REFUSED_LAUNCHES_AMONG_HELD_ONES_AUTO(ErrorsProgram.class, "bad-launch", ",engage=auto"),
  REFUSED_COPIES_PAST_THE_END(ErrorsProgram.class, "bad-copy", ""),
  REFUSED_COPIES_PAST_THE_END_AUTO(ErrorsProgram.class, "bad-copy", ",engage=auto"),
  A_SHUTDOWN_HOOK_READS_WORK_IN_FLIGHT_AT_EXIT(ExitProgram.class, "exit-main", ""),
  A_SHUTDOWN_HOOK_READS_WORK_IN_FLIGHT_AT_EXIT_AUTO(ExitProgram.class, "exit-main", ",engage=auto"),
  A_SHUTDOWN_HOOK_READS_WORK_IN_FLIGHT_AT_ANOTHER_THREADS_EXIT(ExitProgram.class, "exit-other-thread", ""),
  A_SHUTDOWN_HOOK_READS_WORK_IN_FLIGHT_AT_ANOTHER_THREADS_EXIT_AUTO(ExitProgram.class, "exit-other-thread",
      ",engage=auto"),
  // The launch the agent engages at (engage=auto) reads what launches made as written wrote.
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_ITS_NON_BLOCKING_STREAM(HandOverProgram.class, "non-blocking", ""),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_ITS_NON_BLOCKING_STREAM_AUTO(HandOverProgram.class, "non-blocking", ",engage=auto"),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_ITS_BLOCKING_STREAM(HandOverProgram.class, "blocking", ""),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_ITS_BLOCKING_STREAM_AUTO(HandOverProgram.class, "blocking", ",engage=auto"),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_THE_LEGACY_STREAM(HandOverProgram.class, "legacy", ""),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_THE_LEGACY_STREAM_AUTO(HandOverProgram.class, "legacy", ",engage=auto"),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_AN_EVENT_WAITED_FOR_AS_WRITTEN(HandOverProgram.class, "event", ""),
  THE_FIRST_SCHEDULED_LAUNCH_FOLLOWS_AN_EVENT_WAITED_FOR_AS_WRITTEN_AUTO(HandOverProgram.class, "event", ",engage=auto"),
  A_WAIT_AFTER_THE_ENGAGEMENT_FOR_EVENTS_RECORDED_BEFORE_IT(HandOverProgram.class, "events-waited-after", ""),
  A_WAIT_AFTER_THE_ENGAGEMENT_FOR_EVENTS_RECORDED_BEFORE_IT_AUTO(HandOverProgram.class, "events-waited-after",
      ",engage=auto"),
  A_STREAM_IDLE_AT_THE_ENGAGEMENT_ANSWERS_A_QUERY_WITH_SUCCESS(HandOverProgram.class, "idle-stream-queried", ""),
  A_STREAM_IDLE_AT_THE_ENGAGEMENT_ANSWERS_A_QUERY_WITH_SUCCESS_AUTO(HandOverProgram.class, "idle-stream-queried",
      ",engage=auto"),
  A_SCALAR_CHANGED_IN_A_REPEATED_RUN_OF_LAUNCHES(WindowReplayProgram.class, "scalar-change", ""),
  A_SCALAR_CHANGED_IN_A_REPEATED_RUN_OF_LAUNCHES_AUTO(WindowReplayProgram.class, "scalar-change", ",engage=auto"),
  PARAMETERS_AT_BYTE_OFFSETS_IN_A_REPEATED_RUN(WindowReplayProgram.class, "parameters-at-offsets", ""),
  PARAMETERS_AT_BYTE_OFFSETS_IN_A_REPEATED_RUN_AUTO(WindowReplayProgram.class, "parameters-at-offsets",
      ",engage=auto"),
  A_SCALAR_IN_A_BUFFER_AT_A_POSITION_IN_A_REPEATED_RUN(WindowReplayProgram.class, "scalar-in-a-buffer", ""),
  A_SCALAR_IN_A_BUFFER_AT_A_POSITION_IN_A_REPEATED_RUN_AUTO(WindowReplayProgram.class, "scalar-in-a-buffer",
      ",engage=auto"),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_NEW_BUFFER(WindowReplayProgram.class, "new-buffer", ""),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_NEW_BUFFER_AUTO(WindowReplayProgram.class, "new-buffer", ",engage=auto"),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_BUFFER_ALLOCATED_AGAIN(WindowReplayProgram.class, "same-address", ""),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_BUFFER_ALLOCATED_AGAIN_AUTO(WindowReplayProgram.class,
      "same-address", ",engage=auto"),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_BUFFER_ALLOCATED_AGAIN_SMALLER(WindowReplayProgram.class,
      "same-address-other-size", ""),
  A_REPEATED_RUN_OF_LAUNCHES_ON_A_BUFFER_ALLOCATED_AGAIN_SMALLER_AUTO(WindowReplayProgram.class,
      "same-address-other-size", ",engage=auto"),
  RUNS_OF_LAUNCHES_OF_TWO_SHAPES_ALTERNATE(WindowReplayProgram.class, "two-shapes", ""),
  RUNS_OF_LAUNCHES_OF_TWO_SHAPES_ALTERNATE_AUTO(WindowReplayProgram.class, "two-shapes", ",engage=auto"),
  A_REPEATED_RUN_WRITING_THROUGH_A_TABLE_THAT_CHANGES(WindowReplayProgram.class, "indirect", ""),
  A_REPEATED_RUN_WRITING_THROUGH_A_TABLE_THAT_CHANGES_AUTO(WindowReplayProgram.class, "indirect", ",engage=auto"),
  A_REPEATED_RUN_AT_A_MOVING_OFFSET(WindowReplayProgram.class, "moving-offset", ""),
  A_REPEATED_RUN_AT_A_MOVING_OFFSET_AUTO(WindowReplayProgram.class, "moving-offset", ",engage=auto"),
  A_WAIT_FOR_AN_EVENT_NEVER_RECORDED(StreamEventsProgram.class, "never-recorded", ""),
  A_WAIT_FOR_AN_EVENT_NEVER_RECORDED_AUTO(StreamEventsProgram.class, "never-recorded", ",engage=auto"),
  A_WAIT_FOR_AN_EVENT_RECORDED_ON_AN_IDLE_STREAM(StreamEventsProgram.class, "empty-record", ""),
  A_WAIT_FOR_AN_EVENT_RECORDED_ON_AN_IDLE_STREAM_AUTO(StreamEventsProgram.class, "empty-record", ",engage=auto"),
  AN_EVENT_QUERY_LOOP_AS_THE_ONLY_SYNCHRONIZATION(StreamEventsProgram.class, "query-poll", ""),
  AN_EVENT_QUERY_LOOP_AS_THE_ONLY_SYNCHRONIZATION_AUTO(StreamEventsProgram.class, "query-poll", ",engage=auto"),
  A_BYTE_MEMSET_JOINED_BY_AN_EVENT(StreamEventsProgram.class, "memset-d8-join", ""),
  A_BYTE_MEMSET_JOINED_BY_AN_EVENT_AUTO(StreamEventsProgram.class, "memset-d8-join", ",engage=auto"),
  DEVICE_COPIES_CHAINED_ACROSS_THREE_STREAMS(StreamEventsProgram.class, "dtod-chain", ""),
  DEVICE_COPIES_CHAINED_ACROSS_THREE_STREAMS_AUTO(StreamEventsProgram.class, "dtod-chain", ",engage=auto"),
  PAGE_LOCKED_SOURCE_REWRITTEN_AFTER_EACH_SYNCHRONIZE(StreamEventsProgram.class, "pinned-reuse", ""),
  PAGE_LOCKED_SOURCE_REWRITTEN_AFTER_EACH_SYNCHRONIZE_AUTO(StreamEventsProgram.class, "pinned-reuse", ",engage=auto"),
  A_NON_BLOCKING_STREAM_BESIDE_LEGACY_ROUND_TRIPS(StreamEventsProgram.class, "beside-legacy", ""),
  A_NON_BLOCKING_STREAM_BESIDE_LEGACY_ROUND_TRIPS_AUTO(StreamEventsProgram.class, "beside-legacy", ",engage=auto"),
  CONTEXT_SYNCHRONIZE_ON_ANOTHER_THREAD_AFTER_A_RUN_OF_LAUNCHES(StreamEventsProgram.class, "ctx-sync-thread", ""),
  CONTEXT_SYNCHRONIZE_ON_ANOTHER_THREAD_AFTER_A_RUN_OF_LAUNCHES_AUTO(StreamEventsProgram.class,
      "ctx-sync-thread", ",engage=auto"),
  // Contract probes (ContractProbesProgram): kernels of contract.cu, interpreted by the stand-in.
  A_DEVICE_VARIABLE_WRITTEN_AND_READ_BY_KERNELS_WITHOUT_A_POINTER(ContractProbesProgram.class, "device-global", ""),
  A_DEVICE_VARIABLE_WRITTEN_AND_READ_BY_KERNELS_WITHOUT_A_POINTER_AUTO(ContractProbesProgram.class, "device-global",
      ",engage=auto"),
  A_TABLE_OF_DEVICE_POINTERS_READ_AND_REWRITTEN_ON_THE_DEVICE(ContractProbesProgram.class, "pointer-chase", ""),
  A_TABLE_OF_DEVICE_POINTERS_READ_AND_REWRITTEN_ON_THE_DEVICE_AUTO(ContractProbesProgram.class, "pointer-chase",
      ",engage=auto"),
  MEMSETS_OF_EVERY_WIDTH_AT_ODD_OFFSETS_BETWEEN_KERNELS(ContractProbesProgram.class, "memset-widths", ""),
  MEMSETS_OF_EVERY_WIDTH_AT_ODD_OFFSETS_BETWEEN_KERNELS_AUTO(ContractProbesProgram.class, "memset-widths",
      ",engage=auto"),
  DEVICE_COPIES_BETWEEN_ADJACENT_RANGES_OF_ONE_ALLOCATION(ContractProbesProgram.class, "dtod-one-allocation", ""),
  DEVICE_COPIES_BETWEEN_ADJACENT_RANGES_OF_ONE_ALLOCATION_AUTO(ContractProbesProgram.class, "dtod-one-allocation",
      ",engage=auto"),
  A_NON_BLOCKING_STREAM_WAITS_FOR_A_LEGACY_STREAM_EVENT(ContractProbesProgram.class, "legacy-event-wait", ""),
  A_NON_BLOCKING_STREAM_WAITS_FOR_A_LEGACY_STREAM_EVENT_AUTO(ContractProbesProgram.class, "legacy-event-wait",
      ",engage=auto"),
  STREAM_PRIORITIES_FLAGS_AND_CONTEXT_ANSWER_AS_CREATED(ContractProbesProgram.class, "priorities", ""),
  STREAM_PRIORITIES_FLAGS_AND_CONTEXT_ANSWER_AS_CREATED_AUTO(ContractProbesProgram.class, "priorities", ",engage=auto"),
  DYNAMIC_SHARED_MEMORY_AT_FOUR_BLOCK_SIZES_ON_TWO_STREAMS(ContractProbesProgram.class, "dynamic-shared", ""),
  DYNAMIC_SHARED_MEMORY_AT_FOUR_BLOCK_SIZES_ON_TWO_STREAMS_AUTO(ContractProbesProgram.class, "dynamic-shared",
      ",engage=auto"),
  THE_PROCESS_ENDS_WHEN_MAIN_RETURNS_AND_A_WORKER_FINISHES(ReturningMainProgram.class, "main-returns", ""),
  THE_PROCESS_ENDS_WHEN_MAIN_RETURNS_AND_A_WORKER_FINISHES_AUTO(ReturningMainProgram.class, "main-returns",
      ",engage=auto"),
  CUBLAS_HELPER_COPIES_BESIDE_KERNELS_ON_BLOCKING_AND_NON_BLOCKING_STREAMS(UserIdiomsProgram.class, "blas-vectors",
      ""),
  CUBLAS_HELPER_COPIES_BESIDE_KERNELS_ON_BLOCKING_AND_NON_BLOCKING_STREAMS_AUTO(UserIdiomsProgram.class,
      "blas-vectors", ",engage=auto"),
  MANAGED_MEMORY_THE_HOST_READS_AND_WRITES_BETWEEN_SYNCHRONIZATIONS(UserIdiomsProgram.class, "managed", ""),
  MANAGED_MEMORY_THE_HOST_READS_AND_WRITES_BETWEEN_SYNCHRONIZATIONS_AUTO(UserIdiomsProgram.class, "managed",
      ",engage=auto"),
  // The stand-in has neither cublasSdot, the runtime API, launch arguments in `extra`, nor cuMemGetInfo and limits.
  A_DOT_PRODUCT_IN_HOST_AND_DEVICE_POINTER_MODES(ContractGpuProbesProgram.class, "blas-dot", "", Map.of(), true),
  A_DOT_PRODUCT_IN_HOST_AND_DEVICE_POINTER_MODES_AUTO(ContractGpuProbesProgram.class, "blas-dot", ",engage=auto",
      Map.of(), true),
  RUNTIME_API_STREAMS_COPIES_AND_MEMSETS_AMONG_DRIVER_LAUNCHES(ContractGpuProbesProgram.class, "runtime-mix",
      "", Map.of(), true),
  RUNTIME_API_STREAMS_COPIES_AND_MEMSETS_AMONG_DRIVER_LAUNCHES_AUTO(ContractGpuProbesProgram.class, "runtime-mix",
      ",engage=auto",
      Map.of(), true),
  LAUNCH_ARGUMENTS_IN_A_REUSED_EXTRA_BUFFER(ContractGpuProbesProgram.class, "launch-extra", "", Map.of(), true),
  LAUNCH_ARGUMENTS_IN_A_REUSED_EXTRA_BUFFER_AUTO(ContractGpuProbesProgram.class, "launch-extra", ",engage=auto",
      Map.of(), true),
  MEMORY_INFO_AND_LIMITS_THEN_ALMOST_ALL_FREE_MEMORY_ALLOCATED(ContractGpuProbesProgram.class, "memory-info",
      "", Map.of(), true),
  MEMORY_INFO_AND_LIMITS_THEN_ALMOST_ALL_FREE_MEMORY_ALLOCATED_AUTO(ContractGpuProbesProgram.class, "memory-info",
      ",engage=auto",
      Map.of(), true),
  // Nor batched GEMMs, nor the runtime API's managed memory, nor prefetches.
  BATCHED_GEMMS_OVER_POINTER_ARRAYS_AND_STRIDES_ACROSS_STREAMS(UserIdiomsProgram.class, "blas-batched", "", Map.of(),
      true),
  BATCHED_GEMMS_OVER_POINTER_ARRAYS_AND_STRIDES_ACROSS_STREAMS_AUTO(UserIdiomsProgram.class, "blas-batched",
      ",engage=auto", Map.of(), true),
  MANAGED_MEMORY_OF_THE_RUNTIME_API_AND_A_PREFETCH(UserIdiomsProgram.class, "managed-runtime", "", Map.of(), true),
  MANAGED_MEMORY_OF_THE_RUNTIME_API_AND_A_PREFETCH_AUTO(UserIdiomsProgram.class, "managed-runtime", ",engage=auto",
      Map.of(), true),
  // The stand-in has neither stream-ordered allocation nor 2D copies and memsets.
  STREAM_ORDERED_ALLOCATIONS_ACROSS_STREAMS(DeviceMemoryKindsProgram.class, "async-alloc", "", Map.of(), true),
  A_2D_COPY_AFTER_BLOCKING_STREAM_WORK(DeviceMemoryKindsProgram.class, "copy-2d", "", Map.of(), true),
  A_2D_MEMSET_AFTER_AN_EVENT_WAIT(DeviceMemoryKindsProgram.class, "memset-2d", "", Map.of(), true),
  // Nor 3D copies or textures.
  AN_ASYNC_2D_COPY_OVER_HALF_ROWS_AFTER_AN_EVENT_WAIT(StridedMemoryProgram.class, "copy-2d-async", "", Map.of(), true),
  AN_ASYNC_2D_COPY_OVER_HALF_ROWS_AFTER_AN_EVENT_WAIT_AUTO(StridedMemoryProgram.class, "copy-2d-async", ",engage=auto",
      Map.of(), true),
  A_3D_COPY_BETWEEN_PITCHES_IN_STREAM_ORDER(StridedMemoryProgram.class, "copy-3d", "", Map.of(), true),
  A_3D_COPY_BETWEEN_PITCHES_IN_STREAM_ORDER_AUTO(StridedMemoryProgram.class, "copy-3d", ",engage=auto", Map.of(), true),
  A_SYNCHRONOUS_2D_MEMSET_BETWEEN_BLOCKING_STREAM_KERNELS(StridedMemoryProgram.class, "memset-2d-sync", "", Map.of(),
      true),
  A_SYNCHRONOUS_2D_MEMSET_BETWEEN_BLOCKING_STREAM_KERNELS_AUTO(StridedMemoryProgram.class, "memset-2d-sync",
      ",engage=auto", Map.of(), true),
  A_TEXTURE_READ_IS_NOT_OVERTAKEN_BY_A_LATER_WRITE(StridedMemoryProgram.class, "texture", "", Map.of(), true),
  A_TEXTURE_READ_IS_NOT_OVERTAKEN_BY_A_LATER_WRITE_AUTO(StridedMemoryProgram.class, "texture", ",engage=auto", Map.of(),
      true);

  /** The agent, scheduling, without a journal (the journal has tests of its own). */
  static final String AGENT = "mode=schedule,journal=off";

  final Class<?> program;
  final String variant;
  final String agentOptions;
  /** Added to the child's environment either way (the stand-in's settings; a GPU ignores them). */
  final Map<String, String> environment;
  /** Calls the stand-in driver does not have: runs on a GPU only. */
  final boolean needsGpu;

  SemanticsCase(Class<?> program, String variant, String extraAgentOptions) {
    this(program, variant, extraAgentOptions, Map.of());
  }

  SemanticsCase(Class<?> program, String variant, String extraAgentOptions, Map<String, String> environment) {
    this(program, variant, extraAgentOptions, environment, false);
  }

  SemanticsCase(Class<?> program, String variant, String extraAgentOptions, Map<String, String> environment,
      boolean needsGpu) {
    this.program = program;
    this.variant = variant;
    this.agentOptions = AGENT + extraAgentOptions;
    this.environment = environment;
    this.needsGpu = needsGpu;
  }

  /**
   * Runs the program with the agent ({@code withAgent}) or without it.
   *
   * @param env added to the child's environment (the stand-in driver's library path and seed)
   */
  ChildJvm.Result run(boolean withAgent, Map<String, String> env, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("--variant", variant));
    args.addAll(List.of(options));
    Map<String, String> childEnv = new HashMap<>(env);
    childEnv.putAll(environment);
    return ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), withAgent ? agentOptions : null,
        List.of(), childEnv, program.getName(), args.toArray(String[]::new));
  }

  /** What a run printed as its observations, one line each, for a readable comparison. */
  static String observed(ChildJvm.Result r) {
    return String.join("\n", r.observable());
  }

  /** Why a run failed, for a message: its exit code and the ends of its output. */
  static String describe(String label, ChildJvm.Result r) {
    return label + " exited " + r.exitCode() + (r.exitCode() == SmokePrograms.NO_GPU ? " (no GPU)" : "")
        + "\nstdout (end):\n" + tail(r.stdout()) + "\nstderr (end):\n" + tail(r.stderr());
  }

  private static String tail(String text) {
    return text.length() <= 3000 ? text : "..." + text.substring(text.length() - 3000);
  }
}
