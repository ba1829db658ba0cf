package dev.kiln.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The incremental step's contract, as a property: after any sequence of creates, edits, deletes, renames and
 * directory moves, applying exactly the paths a watcher would name gives the snapshot a full rebuild gives. Real
 * files; each case is a random operation sequence from a seed named in the test's display name, so a failure
 * reproduces with that seed. (Plain JUnit rather than jqwik: jqwik 1.10.1 prints a notice asking AI agents not to
 * use it, and the generator here is small.)
 */
class IncrementalSnapshotPropertyTest {

    enum Kind { CREATE, EDIT, MALFORM, DELETE, RENAME, MKDIR, MOVE_DIR, DELETE_DIR, HIDDEN, SPURIOUS, CHECK }

    /** One operation; {@code a} and {@code b} pick among what exists when it runs (modulo their count). */
    record Op(Kind kind, int a, int b, String name) {
    }

    private static final String[] NAMES = {"a", "b", "a-b", "ab", "z"};

    private static final long BASE_SEED = 0x6b696c6eL;
    private static final int CASES = Integer.getInteger("kiln.property.cases", 80);

    static List<Op> ops(long seed) {
        Random r = new Random(seed);
        int n = 1 + r.nextInt(30);
        List<Op> ops = new ArrayList<>(n);
        Kind[] kinds = Kind.values();
        for (int i = 0; i < n; i++) {
            ops.add(new Op(kinds[r.nextInt(kinds.length)], r.nextInt(1_000), r.nextInt(1_000), NAMES[r.nextInt(NAMES.length)]));
        }
        return ops;
    }

    @TestFactory
    Stream<DynamicTest> apply_afterAnyChanges_equalsAFullRebuild() {
        return IntStream.range(0, CASES).mapToObj(i -> {
            long seed = BASE_SEED + i;
            return DynamicTest.dynamicTest("seed " + seed, () -> run(ops(seed)));
        });
    }

    private static void run(List<Op> ops) throws IOException {
        Path root = Files.createTempDirectory("kiln-incremental");
        try {
            Path tasks = root.resolve("tasks");
            Files.createDirectories(tasks);
            TestTrees.contract(tasks, "a/a", "pending");
            TestTrees.contract(tasks, "b/z", "done");
            SnapshotBuilder incremental = new SnapshotBuilder(tasks);
            incremental.build();
            World w = new World(tasks);
            for (Op op : ops) {
                if (op.kind() == Kind.CHECK) {
                    check(incremental, w);
                } else {
                    w.run(op);
                }
            }
            check(incremental, w);
        } finally {
            deleteTree(root);
        }
    }

    private static void check(SnapshotBuilder incremental, World w) {
        ContractSnapshot inc = incremental.apply(w.changed);
        w.changed.clear();
        ContractSnapshot full = new SnapshotBuilder(w.tasks).build();
        assertThat(inc.contracts()).as("contracts, in enumeration order").isEqualTo(full.contracts());
        assertThat(inc.failures()).as("failures, in enumeration order").isEqualTo(full.failures());
        assertThat(incremental.cacheSize()).as("the cache holds exactly the parsed live files").isEqualTo(full.contracts().size());
    }

    /** The tree under test and the paths a watcher would have named since the last check. */
    static final class World {
        final Path tasks;
        final Set<Path> changed = new LinkedHashSet<>();
        int writes;

        World(Path tasks) {
            this.tasks = tasks;
        }

        void run(Op op) throws IOException {
            List<Path> dirs = dirs();
            List<Path> files = files();
            Path dir = dirs.get(op.a() % dirs.size());
            switch (op.kind()) {
                case CREATE -> write(dir.resolve(op.name()).resolve("contract.json"), true);
                case EDIT -> {
                    if (!files.isEmpty()) {
                        write(files.get(op.a() % files.size()), true);
                    }
                }
                case MALFORM -> {
                    if (!files.isEmpty()) {
                        write(files.get(op.a() % files.size()), false);
                    }
                }
                case DELETE -> {
                    if (!files.isEmpty()) {
                        Path f = files.get(op.a() % files.size());
                        Files.delete(f);
                        changed.add(f);
                    }
                }
                case RENAME -> {
                    if (!files.isEmpty()) {
                        Path f = files.get(op.a() % files.size());
                        Path to = dirs.get(op.b() % dirs.size()).resolve(op.name()).resolve("contract.json");
                        if (!Files.exists(to) && !to.startsWith(f)) {
                            Path created = topMostMissing(to.getParent());
                            Files.createDirectories(to.getParent());
                            Files.move(f, to);
                            changed.add(f);
                            changed.add(created != null ? created : to);
                        }
                    }
                }
                case MKDIR -> {
                    Path d = dir.resolve(op.name()).resolve(NAMES[op.b() % NAMES.length]);
                    Path created = topMostMissing(d);
                    if (created != null) {
                        Files.createDirectories(d);
                        changed.add(created);
                    }
                }
                case MOVE_DIR -> {
                    if (dirs.size() > 1) {
                        Path from = dirs.get(1 + op.a() % (dirs.size() - 1));
                        Path to = dirs.get(op.b() % dirs.size()).resolve(op.name());
                        if (!Files.exists(to) && !to.startsWith(from)) {
                            Files.move(from, to);
                            changed.add(from);
                            changed.add(to);
                        }
                    }
                }
                case DELETE_DIR -> {
                    if (dirs.size() > 1) {
                        Path d = dirs.get(1 + op.a() % (dirs.size() - 1));
                        deleteTree(d);
                        changed.add(d); // only the top: its children's events may be lost with it
                    }
                }
                case HIDDEN -> {
                    // hidden entries are no input: no event for them either (the watcher drops them)
                    Path h = dir.resolve(".hidden").resolve("contract.json");
                    Files.createDirectories(h.getParent());
                    Files.writeString(h, "{\"leaf_id\": \"hidden\"}");
                }
                case SPURIOUS -> changed.add(dir); // an event that changes nothing must not hurt
                default -> throw new IllegalStateException(op.toString());
            }
        }

        private Path topMostMissing(Path d) {
            Path missing = null;
            for (Path p = d; p != null && p.startsWith(tasks) && !Files.exists(p); p = p.getParent()) {
                missing = p;
            }
            return missing;
        }

        /** Writes a contract whose size differs from every earlier write, so its stat identity always moves. */
        private void write(Path file, boolean valid) throws IOException {
            Path created = topMostMissing(file.getParent());
            Files.createDirectories(file.getParent());
            writes++;
            String leaf = tasks.relativize(file.getParent()).toString();
            String body = valid
                    ? "{\"leaf_id\": \"" + leaf + "\", \"title\": \"t" + writes + "\", \"status\": \"pending\"}" + " ".repeat(writes)
                    : "{\"leaf_id\": \"" + leaf + "\", \"title\": " + " ".repeat(writes);
            Files.writeString(file, body, StandardCharsets.UTF_8);
            changed.add(created != null ? created : file);
        }

        private List<Path> dirs() throws IOException {
            try (Stream<Path> s = Files.walk(tasks)) {
                return s.filter(Files::isDirectory).filter(p -> !p.toString().contains("/.")).sorted().toList();
            }
        }

        private List<Path> files() throws IOException {
            try (Stream<Path> s = Files.walk(tasks)) {
                return s.filter(Files::isRegularFile).filter(p -> !p.toString().contains("/.")).sorted().toList();
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> s = Files.walk(root)) {
            all = new ArrayList<>(s.sorted(Comparator.reverseOrder()).toList());
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }
}
