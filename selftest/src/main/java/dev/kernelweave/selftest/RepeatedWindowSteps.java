package dev.kernelweave.selftest;

import java.util.ArrayList;
import java.util.List;

/**
 * The repeated window a {@link ProgramGenerator} makes: an application's step loop, the same few
 * launches again and again, the shape the agent replays as a graph.
 *
 * <p>Not thread-safe: one program's making, on one thread.
 */
abstract class RepeatedWindowSteps extends GeneratorState {

  RepeatedWindowSteps(long seed) {
    super(seed);
  }

  /**
   * What an application's step loop does: the same few launches on one stream (a window), several
   * times, a host synchronization between iterations (a synchronous read, a stream, event or
   * context synchronize, new input copied in). Some launches' scalars change now and then or every
   * iteration; buffers may rotate (two or three places per role used in turn, allocations of their
   * own or offsets inside one, sometimes two roles swapping places); one iteration may differ (a
   * launch more, one less, another kernel), or run on another stream. The agent holds a window it
   * saw before and replays it as a graph from the second repeat on: only the launches' scalars and
   * pointers tell one window from another that touches the same allocations.
   */
  void repeatedWindow() {
    int before = ops.size();
    int roles = 2 + random.nextInt(2);
    int r = random.nextInt(10);
    int rotation = r < 5 ? 1 : r < 9 ? 2 : 3;
    int m = 4 + random.nextInt(29);
    boolean swapping = rotation > 1 && random.nextInt(3) == 0;
    int layout = random.nextInt(3); // 0: a place per allocation, 1: an allocation per role, 2: one for all
    Op.At[][] places = new Op.At[roles][rotation];
    int all = -1;
    if (layout == 2) {
      all = allocated(m * roles * rotation);
    }
    for (int role = 0; role < roles; role++) {
      if (swapping && role == 1) {
        continue;
      }
      int own = layout == 1 ? allocated(m * rotation) : -1;
      for (int turn = 0; turn < rotation; turn++) {
        places[role][turn] = layout == 0 ? new Op.At(allocated(m), 0)
            : layout == 1 ? new Op.At(own, turn * m) : new Op.At(all, (role * rotation + turn) * m);
      }
    }
    if (swapping) {
      for (int turn = 0; turn < rotation; turn++) {
        places[1][turn] = places[0][(turn + 1) % rotation];
      }
    }
    List<int[]> body = new ArrayList<>(); // {kernel, out role, in1 role, in2 role, n, k, scalar policy}
    for (int i = 2 + random.nextInt(3); i > 0; i--) {
      body.add(windowLaunch(roles, m));
    }
    int iterations = Math.min(9, rotation * 3 + 1 + random.nextInt(3));
    int diverging = random.nextInt(3) == 0 ? 2 + random.nextInt(iterations - 2) : -1;
    int separator = random.nextInt(5);
    long stream = stream();
    for (int it = 0; it < iterations; it++) {
      int turn = it % rotation;
      List<int[]> launches = new ArrayList<>();
      for (int[] step : body) {
        if (step[6] == 1 && it > 0) {
          step[5]++; // a step counter
        } else if (step[6] == 2 && it > 0 && random.nextInt(3) == 0) {
          if (random.nextInt(4) == 0) {
            step[4] = windowElements(step[0], m);
          } else {
            step[5] = random.nextInt();
          }
        }
        launches.add(step.clone());
      }
      if (it == diverging) {
        switch (random.nextInt(3)) {
          case 0 -> launches.add(windowLaunch(roles, m));
          case 1 -> launches.remove(launches.size() - 1);
          default -> {
            int[] other = windowLaunch(roles, m);
            int at = 1 + random.nextInt(launches.size() - 1);
            launches.set(at, other);
          }
        }
      }
      long on = it > 0 && random.nextInt(10) == 0 ? stream() : stream;
      for (int[] l : launches) {
        SelfTestKernel kernel = SelfTestKernel.values()[l[0]];
        int n = l[4];
        Op.At out = places[l[1]][turn];
        ops.add(new Op.Launch(thread, on, kernel, out, kernel.inputs() >= 1 ? places[l[2]][turn] : null,
            kernel.inputs() >= 2 ? places[l[3]][turn] : null, n, l[5], Op.LaunchMode.PRECISE));
        noteWritten(out.buf());
      }
      windowSeparator(random.nextInt(4) == 0 ? random.nextInt(5) : separator, places, turn, m, on);
    }
    note(Shape.REPEATED_WINDOW);
    if (extra < 0) {
      extra = ops.size() - before; // a loop is long: it must not crowd out the other shapes
    }
  }

  /**
   * A repeated window whose launches the agent may merge into one launch of a kernel: k launches
   * of one kernel, each into an allocation of its own (a pointer parameter stands for its whole
   * allocation), from slices of a shared input, each over its own
   * number of elements (grids of one to three blocks), repeated with host synchronizations between.
   * Now and then the group is almost mergeable: two launches write one allocation, one launch
   * reads another's output, or one launches another kernel.
   */
  void mergeableWindow() {
    SelfTestKernel[] kernels = {SelfTestKernel.FILL, SelfTestKernel.SCALE, SelfTestKernel.MIX, SelfTestKernel.UPDATE,
        SelfTestKernel.REDUCE};
    SelfTestKernel kernel = kernels[random.nextInt(kernels.length)];
    int k = 2 + random.nextInt(4);
    int[] n = new int[k];
    int slot = 0;
    for (int i = 0; i < k; i++) {
      n[i] = random.nextInt(3) == 0 ? 129 + random.nextInt(200) : 1 + random.nextInt(64);
      slot = Math.max(slot, n[i]);
    }
    int flaw = random.nextInt(6); // 0: overlapping slices, 1: a launch reads another's output, 2: another kernel
    int overlapAt = 1 + random.nextInt(k - 1);
    int overlap = random.nextInt(kernel.outElements(n[overlapAt - 1]));
    int[] outs = new int[k];
    for (int i = 0; i < k; i++) {
      outs[i] = allocated(slot);
    }
    int in = allocated(slot * k);
    long stream = stream();
    int[] scalars = new int[k];
    for (int i = 0; i < k; i++) {
      scalars[i] = random.nextInt();
    }
    int iterations = 3 + random.nextInt(3);
    for (int it = 0; it < iterations; it++) {
      for (int i = 0; i < k; i++) {
        Op.At output = flaw == 0 && i == overlapAt ? new Op.At(outs[i - 1], overlap) : new Op.At(outs[i], 0);
        Op.At input = flaw == 1 && i == overlapAt ? new Op.At(outs[i - 1], 0) : new Op.At(in, i * slot);
        SelfTestKernel launched = flaw == 2 && i == overlapAt ? SelfTestKernel.FILL : kernel;
        int elements = Math.min(n[i], slot - output.offset());
        ops.add(new Op.Launch(thread, stream, launched, output,
            launched.inputs() >= 1 ? input : null, launched.inputs() >= 2 ? new Op.At(in, i * slot) : null,
            elements, scalars[i], Op.LaunchMode.PRECISE));
      }
      int read = outs[random.nextInt(k)];
      noteWritten(read);
      if (random.nextBoolean()) {
        ops.add(new Op.Read(thread, new Op.At(read, 0), slot));
        noteRead(read);
      } else {
        streamSync(stream);
      }
    }
    note(Shape.MERGEABLE_WINDOW);
  }

  /** A launch of a window: {kernel, out role, in1 role, in2 role, n, k, scalars: 0 fixed, 1 counting, 2 changing}. */
  int[] windowLaunch(int roles, int m) {
    SelfTestKernel kernel = SelfTestKernel.values()[random.nextInt(SelfTestKernel.values().length)];
    int out = random.nextInt(roles);
    int in1 = (out + 1 + random.nextInt(roles - 1)) % roles;
    int in2 = (out + 1 + random.nextInt(roles - 1)) % roles;
    int p = random.nextInt(20);
    return new int[] {kernel.ordinal(), out, in1, in2, windowElements(kernel.ordinal(), m), random.nextInt(),
        p < 12 ? 0 : p < 15 ? 1 : 2};
  }

  /** Elements a window's launch takes in places of {@code m}: FILL_BACKWARD's pointer stays inside its place. */
  int windowElements(int kernel, int m) {
    return SelfTestKernel.values()[kernel] == SelfTestKernel.FILL_BACKWARD ? 1 + random.nextInt(m - 1) : 1 + random.nextInt(m);
  }

  /** The host synchronization after an iteration of a window. */
  void windowSeparator(int kind, Op.At[][] places, int turn, int m, long stream) {
    Op.At place = places[random.nextInt(places.length)][turn];
    int n = 1 + random.nextInt(m);
    switch (kind) {
      case 0, 1 -> {
        ops.add(new Op.Read(thread, place, n));
        noteRead(place.buf());
      }
      case 2 -> streamSync(stream);
      case 3 -> {
        if (random.nextBoolean()) {
          ops.add(new Op.SyncContext(thread));
        } else {
          int event = random.nextInt(events);
          ops.add(new Op.EventRecord(thread, event, stream));
          ops.add(new Op.EventSync(thread, event));
        }
      }
      default -> {
        // New input for the next iteration: the same window, other data.
        ops.add(new Op.Write(thread, place, n, random.nextLong()));
        noteWritten(place.buf());
      }
    }
  }
}
