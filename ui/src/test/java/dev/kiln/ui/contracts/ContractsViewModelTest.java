package dev.kiln.ui.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Contracts page's state, without a window. */
class ContractsViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void refresh_listsEveryContractWithItsState() {
        DemoSummary demo = new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = new ContractsViewModel(WorkspaceLayout.of(tmp), Background.inline());

        vm.refresh();

        assertThat(vm.rows()).hasSize(60);
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("unreadable")).singleElement()
                .satisfies(r -> assertThat("tasks/" + r.file()).isEqualTo(demo.malformed()));
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("legacy id")).extracting(r -> "tasks/" + r.file())
                .containsExactlyInAnyOrderElementsOf(demo.legacyIds());
        assertThat(vm.summaryProperty().get()).startsWith("60 contracts · " + demo.legacyIds().size() + " legacy ids · 1 unreadable");
        assertThat(vm.loadingProperty().get()).isFalse();
    }

    @Test
    void filter_narrowsShownRowsOnly() {
        new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = new ContractsViewModel(WorkspaceLayout.of(tmp), Background.inline());
        vm.refresh();

        vm.filterProperty().set("UNREADABLE");

        assertThat(vm.shownRows()).hasSize(1);
        assertThat(vm.rows()).hasSize(60);
        vm.filterProperty().set("");
        assertThat(vm.shownRows()).hasSize(60);
    }

    @Test
    void refresh_missingTasksDir_listsNothingWithoutError() {
        ContractsViewModel vm = new ContractsViewModel(WorkspaceLayout.of(tmp.resolve("gone")), Background.inline());

        vm.refresh();

        assertThat(vm.rows()).isEmpty();
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.summaryProperty().get()).startsWith("0 contracts");
    }

    @Test
    void refresh_failure_isShownAsError() {
        ContractsViewModel vm = new ContractsViewModel(WorkspaceLayout.of(tmp), new Background() {
            @Override
            public <T> void run(java.util.concurrent.Callable<T> work, java.util.function.Consumer<? super T> onResult,
                    java.util.function.Consumer<? super Throwable> onError) {
                onError.accept(new java.io.IOException("Permission denied"));
            }
        });

        vm.refresh();

        assertThat(vm.errorProperty().get()).contains("Could not list").contains("Permission denied");
        assertThat(vm.loadingProperty().get()).isFalse();
    }
}
