package dev.kiln.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LeafIdsTest {

    @Test
    void canonical_nestedLeaf_isSlashSeparatedPathUnderTasks() {
        assertThat(LeafIds.canonical(Path.of("/w/tasks"), Path.of("/w/tasks/payments/refunds/retry"))).isEqualTo("payments/refunds/retry");
    }

    @Test
    void canonical_dirOutsideTasks_isRejected() {
        assertThatThrownBy(() -> LeafIds.canonical(Path.of("/w/tasks"), Path.of("/w/other"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeafIds.canonical(Path.of("/w/tasks"), Path.of("/w/tasks"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shape_judgesDeclaredIdAgainstLocation() {
        assertThat(LeafIds.shape("payments/refunds/retry", "payments/refunds/retry")).isEqualTo(LeafIds.Shape.CANONICAL);
        assertThat(LeafIds.shape("retry", "payments/refunds/retry")).isEqualTo(LeafIds.Shape.STEM);
        assertThat(LeafIds.shape("payments/ledger/retry", "payments/refunds/retry")).isEqualTo(LeafIds.Shape.MISPLACED);
        assertThat(LeafIds.shape("backfill", "payments/refunds/retry")).isEqualTo(LeafIds.Shape.MISPLACED);
        assertThat(LeafIds.shape(null, "payments/refunds/retry")).isEqualTo(LeafIds.Shape.MISSING);
        assertThat(LeafIds.shape("retry", "retry")).isEqualTo(LeafIds.Shape.CANONICAL);
    }

    @Test
    void ofContractFile_isTheLeafDirectory() {
        assertThat(LeafIds.ofContractFile("a/b/contract.json")).isEqualTo("a/b");
        assertThat(LeafIds.ofContractFile("contract.json")).isEmpty();
    }
}
