package dev.kiln.core.snapshot;

import static dev.kiln.core.snapshot.TestTrees.contract;
import static dev.kiln.core.snapshot.TestTrees.stepPastTimestampGranularity;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class SnapshotBuilderTest {
    @TempDir
    Path root;

    private Path tasks() {
        return root.resolve("tasks");
    }

    private List<Path> contracts(int n) throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            files.add(contract(tasks(), "area-" + i % 3 + "/project-" + i % 5 + "/leaf-" + i, "running"));
        }
        return files;
    }

    @Test
    void build_threeTicks_parsesAllThenNoneThenExactlyTheEditedOne() throws Exception {
        List<Path> files = contracts(60);
        SnapshotBuilder b = new SnapshotBuilder(tasks());

        SnapshotStats first = b.build().stats();
        SnapshotStats second = b.build().stats();
        stepPastTimestampGranularity(files.get(17));
        contract(tasks(), "area-2/project-2/leaf-17", "done");
        ContractSnapshot third = b.build();

        assertThat(first.enumerated()).isEqualTo(60);
        assertThat(first.parsed()).isEqualTo(60);
        assertThat(second.parsed()).isZero();
        assertThat(second.reused()).isEqualTo(60);
        assertThat(third.stats().parsed()).isEqualTo(1);
        assertThat(third.stats().reused()).isEqualTo(59);
        assertThat(third.byLeafId().get("area-2/project-2/leaf-17").contract().status()).isEqualTo("done");
    }

    /** An edit-only step names the positions it replaced; a step that adds a file, or a full build, names none. */
    @Test
    void apply_editsOnly_namesReplacedPositionsElseNone() throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            files.add(contract(tasks(), "t/leaf-" + (char) ('a' + i), "running"));
        }
        SnapshotBuilder b = new SnapshotBuilder(tasks());
        ContractSnapshot full = b.build();
        stepPastTimestampGranularity(files.get(3));
        contract(tasks(), "t/leaf-p", "done"); // position 15
        contract(tasks(), "t/leaf-d", "done"); // position 3
        ContractSnapshot edited = b.apply(List.of(files.get(15), files.get(3)));

        assertThat(edited.replacedSince(full)).containsExactly(3, 15);
        for (int i = 0; i < 20; i++) {
            if (i != 3 && i != 15) {
                assertThat(edited.contracts().get(i)).isSameAs(full.contracts().get(i));
            }
        }
        assertThat(edited.replacedSince(edited)).as("only relative to the snapshot it was made from").isNull();
        Path added = contract(tasks(), "t/leaf-zz", "running");
        ContractSnapshot grown = b.apply(List.of(added));
        assertThat(grown.replacedSince(edited)).as("a new file shifts positions: compare everything").isNull();
        assertThat(b.build().replacedSince(grown)).isNull();
    }

    @Test
    void build_unchangedFile_reusesTheVeryInstance() throws Exception {
        contracts(3);
        SnapshotBuilder b = new SnapshotBuilder(tasks());

        ContractSnapshot s1 = b.build();
        ContractSnapshot s2 = b.build();

        for (int i = 0; i < 3; i++) {
            assertThat(s2.contracts().get(i)).isSameAs(s1.contracts().get(i));
        }
    }

    @Test
    void build_chmodOnly_reparsesBecauseCtimeMoved() throws Exception {
        Path file = contracts(5).get(2);
        SnapshotBuilder b = new SnapshotBuilder(tasks());
        b.build();
        StatIdentity before = StatIdentity.of(file);

        stepPastTimestampGranularity(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        SnapshotStats after = b.build().stats();

        StatIdentity now = StatIdentity.of(file);
        assertThat(now.size()).isEqualTo(before.size());
        assertThat(now.mtimeNanos()).isEqualTo(before.mtimeNanos());
        assertThat(after.parsed()).isEqualTo(1);
    }

    @Test
    void build_sameSizeRewriteWithMtimePinned_isReparsed() throws Exception {
        Path file = contracts(5).get(3);
        SnapshotBuilder b = new SnapshotBuilder(tasks());
        b.build();
        FileTime mtime = Files.getLastModifiedTime(file);
        long size = Files.size(file);

        stepPastTimestampGranularity(file);
        Files.writeString(file, Files.readString(file).replace("\"running\"", "\"blocked\""));
        Files.setLastModifiedTime(file, mtime);
        ContractSnapshot s = b.build();

        assertThat(Files.size(file)).isEqualTo(size);
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(mtime);
        assertThat(s.stats().parsed()).isEqualTo(1);
        assertThat(s.byLeafId().get("area-0/project-3/leaf-3").contract().status()).isEqualTo("blocked");
    }

    @Test
    void build_malformedContract_isReportedEveryTickAndParsedOnceFixed() throws Exception {
        contracts(4);
        Path bad = tasks().resolve("area-9/broken/contract.json");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "{\n  \"leaf_id\": \"area-9/broken\",\n  \"status\": \n");
        SnapshotBuilder b = new SnapshotBuilder(tasks());

        ContractSnapshot t1 = b.build();
        ContractSnapshot t2 = b.build();
        stepPastTimestampGranularity(bad);
        contract(tasks(), "area-9/broken", "pending");
        ContractSnapshot t3 = b.build();

        for (ContractSnapshot s : List.of(t1, t2)) {
            assertThat(s.failures()).singleElement().satisfies(f -> {
                assertThat(f.path()).isEqualTo("area-9/broken/contract.json");
                assertThat(f.kind()).isEqualTo(SnapshotFailure.Kind.MALFORMED);
                assertThat(f.reason()).contains("line").contains("retried next tick");
            });
            assertThat(s.contracts()).hasSize(4);
        }
        assertThat(b.cacheSize()).isEqualTo(5);
        assertThat(t3.failures()).isEmpty();
        assertThat(t3.stats().parsed()).isEqualTo(1);
        assertThat(t3.byLeafId()).containsKey("area-9/broken");
    }

    @Test
    void build_oversizedContract_isAFailureAndNotCached() throws Exception {
        contracts(2);
        Path big = tasks().resolve("big/leaf/contract.json");
        Files.createDirectories(big.getParent());
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(2L << 20);
        }
        SnapshotBuilder b = new SnapshotBuilder(tasks());

        ContractSnapshot s = b.build();

        assertThat(s.failures()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(SnapshotFailure.Kind.TOO_LARGE);
            assertThat(f.reason()).contains("limit");
        });
        assertThat(b.cacheSize()).isEqualTo(2);
        assertThat(s.existingLeafIds()).contains("big/leaf");
    }

    @Test
    void build_heavyCreateDeleteChurn_cacheHoldsExactlyTheLiveFiles() throws Exception {
        Random random = new Random(42);
        List<String> live = new ArrayList<>();
        SnapshotBuilder b = new SnapshotBuilder(tasks());
        int next = 0;
        for (int round = 0; round < 8; round++) {
            for (int i = 0; i < 150; i++) {
                String leaf = "churn/p" + next % 7 + "/leaf-" + next++;
                contract(tasks(), leaf, "pending");
                live.add(leaf);
            }
            int deletes = round == 7 ? live.size() - 3 : 100;
            for (int i = 0; i < deletes; i++) {
                String leaf = live.remove(random.nextInt(live.size()));
                Files.delete(tasks().resolve(leaf).resolve("contract.json"));
                Files.delete(tasks().resolve(leaf));
            }
            int before = b.cacheSize();
            ContractSnapshot s = b.build();

            assertThat(s.contracts()).hasSize(live.size());
            assertThat(b.cacheSize()).isEqualTo(live.size());
            assertThat(s.stats().pruned()).isEqualTo(before - s.stats().reused());
        }
        assertThat(b.cacheSize()).isEqualTo(3);
    }

    @Test
    @Timeout(30)
    void build_symlinkLoops_terminateAndAreReported() throws Exception {
        contracts(3);
        Path a = tasks().resolve("area-0");
        Files.createSymbolicLink(a.resolve("loop"), a);
        Files.createSymbolicLink(a.resolve("project-0").resolve("to-root"), tasks());
        Files.createSymbolicLink(tasks().resolve("self"), Path.of("."));

        ContractSnapshot s = new SnapshotBuilder(tasks()).build();

        assertThat(s.contracts()).hasSize(3);
        assertThat(s.failures()).extracting(SnapshotFailure::path)
                .containsExactlyInAnyOrder("area-0/loop", "area-0/project-0/to-root", "self");
        assertThat(s.failures()).allSatisfy(f -> assertThat(f.kind()).isEqualTo(SnapshotFailure.Kind.SYMLINK_LOOP));
    }

    @Test
    void build_unreadableDirectory_isReportedAndTheRestIsBuilt() throws Exception {
        contracts(4);
        Path locked = tasks().resolve("area-1");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(locked),
                    "running as root: a mode-000 directory stays readable, so there is nothing to provoke");

            ContractSnapshot s = new SnapshotBuilder(tasks()).build();

            assertThat(s.failures()).singleElement().satisfies(f -> {
                assertThat(f.path()).isEqualTo("area-1");
                assertThat(f.kind()).isEqualTo(SnapshotFailure.Kind.UNREADABLE_DIR);
            });
            assertThat(s.contracts()).extracting(ContractFile::leafId).noneMatch(id -> id.startsWith("area-1/"));
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void build_symlinkedLeafOutsideTasks_isFollowed() throws Exception {
        contracts(1);
        Path elsewhere = root.resolve("elsewhere");
        contract(elsewhere, "leaf", "running");
        Files.createSymbolicLink(tasks().resolve("linked"), elsewhere.resolve("leaf"));

        ContractSnapshot s = new SnapshotBuilder(tasks()).build();

        assertThat(s.byLeafId()).containsKey("linked");
        assertThat(s.failures()).isEmpty();
    }

    @Test
    void build_missingTasksDir_isAnEmptySnapshot() {
        ContractSnapshot s = new SnapshotBuilder(root.resolve("nope")).build();

        assertThat(s.contracts()).isEmpty();
        assertThat(s.failures()).isEmpty();
    }

    @Test
    void build_contractsAreInSortedDepthFirstOrder() throws Exception {
        for (String leaf : List.of("b/x", "a/z", "a/y/deep", "a/y")) {
            contract(tasks(), leaf, "pending");
        }

        ContractSnapshot s = new SnapshotBuilder(tasks()).build();

        assertThat(s.contracts()).extracting(ContractFile::leafId).containsExactly("a/y", "a/y/deep", "a/z", "b/x");
    }

    @Test
    void invalidateAll_nextBuildParsesEverything() throws Exception {
        contracts(7);
        SnapshotBuilder b = new SnapshotBuilder(tasks());
        b.build();

        b.invalidateAll();

        assertThat(b.build().stats().parsed()).isEqualTo(7);
        assertThat(b.statWalk()).isEqualTo(7);
    }
}
