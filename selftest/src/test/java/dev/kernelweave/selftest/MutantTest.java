package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.scheduler.OrderingRules;
import dev.kernelweave.scheduler.OrderingRules.Rule;
import dev.kernelweave.scheduler.Placement;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MutantTest {

  @Test
  void theRealSchedulerKeepsEveryRuleAndTheCanonicalTable() {
    assertSame(OrderingRules.CUDA, Mutant.NONE.rules());
    assertTrue(OrderingRules.CUDA.isCuda());
    for (Rule r : Rule.values()) {
      assertTrue(OrderingRules.CUDA.keeps(r), r.name());
    }
  }

  /** Each mutant breaks one thing, and no two break the same: each shows the fuzz catching a different bug. */
  @Test
  void eachMutantDropsOneRuleOrBreaksTheTableAndNoTwoAlike() {
    Set<Rule> dropped = EnumSet.noneOf(Rule.class);
    for (Mutant m : Mutant.values()) {
      if (m == Mutant.NONE || m == Mutant.KERNEL_RANGE_FROM_POINTER) {
        continue; // the second is broken in the fuzz's own pointer ranges (CallRecording)
      }
      OrderingRules rules = m.rules();
      assertFalse(rules.isCuda(), m.option());
      int missing = 0;
      for (Rule r : Rule.values()) {
        if (!rules.keeps(r)) {
          missing++;
          assertTrue(dropped.add(r), () -> r + " dropped twice");
        }
      }
      boolean tableBroken = rules.table() != CudaCallTable.canonical();
      assertEquals(1, missing + (tableBroken ? 1 : 0), m.option());
    }
    assertEquals(EnumSet.allOf(Rule.class), dropped, "a rule no mutant drops is a guarantee the fuzz never shows kept");
  }

  @Test
  void theSyncCopyMutantBreaksTheRowOfTheSynchronousCopyToTheHost() {
    CudaCallTable broken = Mutant.SYNC_COPY_MARKED_ASYNC.rules().table();
    CudaCallTable canonical = CudaCallTable.canonical();
    assertEquals(Placement.ASYNC, broken.row(CudaCallTable.COPY_TO_HOST).placement());
    assertNotEquals(canonical.row(CudaCallTable.COPY_TO_HOST).placement(), Placement.ASYNC);
    assertSame(canonical, Mutant.DROP_RAW.rules().table(), "other mutants leave the table as it is");
  }
}
