package dev.kiln.ui.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Contracts page's state and its heal action, without a window, against the engine the subclass supplies. */
abstract class ContractsViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    private ContractsViewModel open() {
        return new ContractsViewModel(engine(tmp), Background.inline());
    }

    @Test
    void refresh_listsEveryContractWithItsIdState() {
        DemoSummary demo = new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = open();

        vm.refresh();

        assertThat(vm.rows()).hasSize(60);
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("unreadable")).singleElement()
                .satisfies(r -> assertThat("tasks/" + r.file()).isEqualTo(demo.malformed()));
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("legacy id")).extracting(r -> "tasks/" + r.file())
                .containsExactlyInAnyOrderElementsOf(demo.legacyIds());
        assertThat(vm.summaryProperty().get()).startsWith("60 contract files · " + demo.legacyIds().size() + " legacy ids · 0 misplaced · 1 unreadable");
        assertThat(vm.rows()).filteredOn(r -> r.deadline().endsWith("· overdue")).hasSize(
                (int) demo.pastDeadline().stream().filter(p -> !p.equals(demo.malformed())).count());
        assertThat(vm.loadingProperty().get()).isFalse();
    }

    @Test
    void filter_andFlaggedOnly_narrowShownRowsOnly() {
        DemoSummary demo = new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();

        vm.filterProperty().set("UNREADABLE");
        assertThat(vm.shownRows()).hasSize(1);

        vm.filterProperty().set("");
        vm.flaggedOnlyProperty().set(true);
        assertThat(vm.shownRows()).hasSize(demo.legacyIds().size() + 1);
        assertThat(vm.rows()).hasSize(60);
    }

    @Test
    void matchCount_saysHowManyOfAllTheFilterLetsThrough() {
        new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();
        assertThat(vm.matchCountProperty().get()).isEqualTo("60 rows");

        vm.filterProperty().set("UNREADABLE");
        assertThat(vm.matchCountProperty().get()).isEqualTo("1 of 60 match");

        vm.filterProperty().set("no such contract");
        assertThat(vm.matchCountProperty().get()).isEqualTo("0 of 60 match");

        vm.filterProperty().set("");
        assertThat(vm.matchCountProperty().get()).isEqualTo("60 rows");
    }

    @Test
    void selection_followsTheRowThroughATick_andClearsWhenTheFilterHidesIt() throws Exception {
        new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();
        ContractRow row = vm.rows().stream().filter(r -> r.state().equals("ok")).findFirst().orElseThrow();
        vm.select(row);
        Path file = tmp.resolve("tasks").resolve(row.file());
        Files.writeString(file, Files.readString(file).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"selected and edited\""));

        vm.refresh();

        assertThat(vm.selectedProperty().get()).isNotNull();
        assertThat(vm.selectedProperty().get().file()).isEqualTo(row.file());
        assertThat(vm.selectedProperty().get().title()).isEqualTo("selected and edited"); // the new row, not the stale one
        assertThat(vm.detailsProperty().get()).contains("selected and edited");

        vm.filterProperty().set("UNREADABLE");

        assertThat(vm.selectedProperty().get()).isNull();
        assertThat(vm.detailsProperty().get()).isEmpty();
    }

    @Test
    void heal_previewWritesNothing_applyRewritesExactlyThePreviewedIds() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(tmp, 60, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();
        byte[] before = Files.readAllBytes(tmp.resolve(demo.legacyIds().get(0)));

        vm.previewHeal();

        assertThat(vm.healPreviewProperty().get().changes()).hasSize(demo.legacyIds().size());
        assertThat(vm.healPreviewProperty().get().dryRun()).isTrue();
        assertThat(Files.readAllBytes(tmp.resolve(demo.legacyIds().get(0)))).isEqualTo(before);

        vm.applyHeal();

        assertThat(vm.healPreviewProperty().get()).isNull();
        assertThat(vm.noticeProperty().get()).startsWith("Healed " + demo.legacyIds().size() + " leaf ids");
        String healed = new ObjectMapper().readTree(tmp.resolve(demo.legacyIds().get(0)).toFile()).get("leaf_id").asText();
        assertThat("tasks/" + healed + "/contract.json").isEqualTo(demo.legacyIds().get(0));
        assertThat(vm.rows()).noneMatch(r -> r.state().equals("legacy id"));
    }

    @Test
    void heal_cancelled_writesNothing() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(tmp, 30, 5, false);
        ContractsViewModel vm = open();
        byte[] before = Files.readAllBytes(tmp.resolve(demo.legacyIds().get(0)));

        vm.previewHeal();
        vm.cancelHeal();
        vm.applyHeal();

        assertThat(Files.readAllBytes(tmp.resolve(demo.legacyIds().get(0)))).isEqualTo(before);
        assertThat(vm.noticeProperty().get()).isEmpty();
    }

    @Test
    void refresh_missingTasksDir_listsNothingWithoutError() {
        ContractsViewModel vm = open();

        vm.refresh();

        assertThat(vm.rows()).isEmpty();
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.summaryProperty().get()).startsWith("0 contract files");
    }

    /** Rows are built off the FX thread, one build at a time: ticks that come meanwhile coalesce into the newest. */
    @Test
    void showLatest_ticksDuringABuild_buildOnlyTheNewest_withEveryChangeSinceTheShownOne() throws Exception {
        new DemoWorkspace().write(tmp, 30, 5, false);
        java.util.Deque<Runnable> queued = new java.util.ArrayDeque<>();
        dev.kiln.core.engine.Engine kiln = engine(tmp);
        kiln.projection().start(false); // one tick now, then only on demand
        ContractsViewModel vm = new ContractsViewModel(kiln, new Background() {
            @Override
            public <T> Cancellable run(java.util.concurrent.Callable<T> work, java.util.function.Consumer<? super T> onResult,
                    java.util.function.Consumer<? super Throwable> onError) {
                queued.add(() -> {
                    try {
                        onResult.accept(work.call());
                    } catch (Exception e) {
                        onError.accept(e);
                    }
                });
                return () -> { };
            }
        });
        kiln.projection().projectNow();
        vm.showLatest();
        assertThat(queued).hasSize(1);
        assertThat(vm.rows()).isEmpty(); // not built yet

        java.util.List<Path> files;
        try (var walk = Files.walk(tmp.resolve("tasks"))) {
            files = walk.filter(p -> p.endsWith("contract.json")).sorted().limit(12).toList();
        }
        java.util.List<String> edited = new java.util.ArrayList<>();
        for (Path f : files) {
            String json = Files.readString(f);
            if (edited.size() < 2 && json.matches("(?s).*\"status\" : \"[a-z]+\".*")) {
                Files.writeString(f, json.replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"coalesced\""));
                edited.add(tmp.resolve("tasks").relativize(f).toString());
                kiln.projection().projectNow();
                vm.showLatest(); // while the first build is still queued
            }
        }
        assertThat(edited).hasSize(2);
        assertThat(queued).as("one build at a time").hasSize(1);

        queued.poll().run(); // the first snapshot shows, and the newest one is built next: the middle one never is
        assertThat(vm.rows()).hasSize(30).noneMatch(ContractRow::changed);
        assertThat(queued).hasSize(1);
        queued.poll().run();

        assertThat(queued).isEmpty();
        assertThat(vm.rows()).filteredOn(ContractRow::changed).extracting(ContractRow::file)
                .containsExactlyInAnyOrderElementsOf(edited);
        assertThat(vm.rows()).filteredOn(r -> r.status().equals("coalesced")).hasSize(2);
        vm.settleChanges();
        assertThat(vm.rows()).noneMatch(ContractRow::changed).hasSize(30);
    }

    @Test
    void refresh_failure_isShownAsError() {
        ContractsViewModel vm = new ContractsViewModel(engine(tmp), new Background() {
            @Override
            public <T> Cancellable run(java.util.concurrent.Callable<T> work, java.util.function.Consumer<? super T> onResult,
                    java.util.function.Consumer<? super Throwable> onError) {
                onError.accept(new java.io.IOException("Permission denied"));
                return () -> { };
            }
        });

        vm.refresh();

        assertThat(vm.errorProperty().get()).contains("Projection failed").contains("Permission denied");
        assertThat(vm.loadingProperty().get()).isFalse();
    }

    @Test
    void hidden_ticksBuildNoRows_onlyTheSummary_shownAgainItBuildsTheNewest() throws Exception {
        new DemoWorkspace().write(tmp, 30, 5, false);
        dev.kiln.core.engine.Engine engine = engine(tmp);
        ContractsViewModel vm = new ContractsViewModel(engine, Background.inline());
        vm.refresh();
        assertThat(vm.summaryProperty().get()).startsWith("30 contract files");

        vm.setShowing(false);
        ContractRow gone = vm.rows().stream().filter(r -> r.state().equals("ok")).findFirst().orElseThrow();
        Files.delete(tmp.resolve("tasks").resolve(gone.file()));
        engine.projection().projectNow();
        vm.showLatest(); // as after every tick

        assertThat(vm.rows()).as("hidden: the rows stay as last shown").hasSize(30).contains(gone);
        assertThat(vm.summaryProperty().get()).as("the status bar's line still follows").startsWith("29 contract files");

        vm.setShowing(true);
        assertThat(vm.rows()).hasSize(29).noneMatch(r -> r.file().equals(gone.file()));
        assertThat(vm.summaryProperty().get()).startsWith("29 contract files");
    }

    @Test
    void refresh_afterAnEdit_marksOnlyTheEditedRowReParsedAndChanged_settleClearsIt() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(tmp, 30, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();
        assertThat(vm.rows()).filteredOn(r -> !r.state().equals("unreadable")).allSatisfy(r -> assertThat(r.parse()).isEqualTo("parsed"));
        assertThat(vm.rows()).noneMatch(ContractRow::changed);
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("unreadable")).singleElement()
                .satisfies(r -> assertThat(r.parse()).startsWith("failed: "));

        ContractRow edited = vm.rows().stream().filter(r -> r.state().equals("ok")).findFirst().orElseThrow();
        Path file = tmp.resolve("tasks").resolve(edited.file());
        Files.writeString(file, Files.readString(file).replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-in-a-test\""));
        vm.refresh();

        assertThat(vm.rows()).filteredOn(ContractRow::changed).singleElement().satisfies(r -> {
            assertThat(r.file()).isEqualTo(edited.file());
            assertThat(r.parse()).isEqualTo("re-parsed this tick");
            assertThat(r.status()).isEqualTo("edited-in-a-test");
        });
        assertThat(vm.rows()).filteredOn(r -> r.state().equals("ok") && !r.file().equals(edited.file()))
                .allSatisfy(r -> assertThat(r.parse()).isEqualTo("cached"));
        assertThat(vm.changedCountProperty().get()).isEqualTo(1);

        vm.settleChanges();
        assertThat(vm.rows()).noneMatch(ContractRow::changed);
        assertThat(vm.changedCountProperty().get()).isZero();
    }

    @Test
    void select_showsTheFilesJson_andAFailedParsesReason() {
        DemoSummary demo = new DemoWorkspace().write(tmp, 12, 5, false);
        ContractsViewModel vm = open();
        vm.refresh();

        ContractRow ok = vm.rows().stream().filter(r -> r.state().equals("ok")).findFirst().orElseThrow();
        vm.select(ok);
        assertThat(vm.detailsProperty().get()).contains("\"leaf_id\"").contains(ok.canonicalId());

        ContractRow bad = vm.rows().stream().filter(r -> r.state().equals("unreadable")).findFirst().orElseThrow();
        vm.select(bad);
        assertThat(vm.selectedProperty().get().parse()).startsWith("failed: ").contains("not valid JSON");
        assertThat(vm.detailsProperty().get()).isNotEmpty();

        vm.select(null);
        assertThat(vm.detailsProperty().get()).isEmpty();
    }
}
