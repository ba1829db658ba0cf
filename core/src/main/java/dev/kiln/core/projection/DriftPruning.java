package dev.kiln.core.projection;

import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The drift pruning reader: removes {@code observer/drift/<leaf>.json} whose leaf no longer exists, and says
 * what it removed.
 *
 * <p>A leaf exists while its directory holds a contract, parsed or not (a malformed contract does not make
 * drift disappear). Nothing below a directory the snapshot could not read is pruned: unknown is not gone.
 *
 * @param removed drift files removed, relative to {@code observer/drift/}, sorted
 * @param problems files that should have gone but could not be removed, with the reason
 */
record DriftPruning(List<String> removed, List<String> problems) {

    public DriftPruning {
        removed = List.copyOf(removed);
        problems = List.copyOf(problems);
    }

    /** Prunes {@code driftDir} against a shared snapshot. */
    public static DriftPruning prune(ContractSnapshot snapshot, Path driftDir) {
        AtomicReference<Set<String>> live = new AtomicReference<>(); // computed on the first drift file: most ticks find none
        List<String> unknownBelow = new ArrayList<>();
        for (SnapshotFailure f : snapshot.failures()) {
            if (f.isDirectory()) {
                if (f.path().equals(".")) {
                    return new DriftPruning(List.of(), List.of()); // tasks/ itself unreadable: nothing is known gone
                }
                unknownBelow.add(f.path() + "/");
            }
        }
        List<String> removed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        if (!Files.isDirectory(driftDir)) {
            return new DriftPruning(removed, problems);
        }
        try {
            Files.walkFileTree(driftDir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String rel = driftDir.relativize(file).toString().replace('\\', '/');
                    String name = file.getFileName().toString();
                    if (!attrs.isRegularFile() || !name.endsWith(".json") || name.startsWith(".")) {
                        return FileVisitResult.CONTINUE;
                    }
                    String leaf = rel.substring(0, rel.length() - ".json".length());
                    Set<String> ids = live.get();
                    if (ids == null) {
                        ids = snapshot.existingLeafIds();
                        live.set(ids);
                    }
                    if (ids.contains(leaf) || unknownBelow.stream().anyMatch(leaf::startsWith)) {

                        return FileVisitResult.CONTINUE;
                    }
                    try {
                        Files.deleteIfExists(file);
                        removed.add(rel);
                    } catch (IOException e) {
                        problems.add(rel + ": cannot remove: " + e.getMessage());
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    if (!(e instanceof NoSuchFileException)) {
                        problems.add(driftDir.relativize(file) + ": cannot read: " + e.getMessage());
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                    if (!dir.equals(driftDir) && !removed.isEmpty()) {
                        try {
                            Files.deleteIfExists(dir); // tidy directories the pruning emptied
                        } catch (DirectoryNotEmptyException ignored) {
                            // still holds drift of live leaves
                        } catch (IOException ignored) {
                            // cosmetic only
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            problems.add("cannot walk " + driftDir + ": " + e.getMessage());
        }
        Collections.sort(removed);
        return new DriftPruning(removed, problems);
    }

    /** Standalone: builds its own snapshot of the workspace; the same answer as {@link #prune} on a shared one. */
    public static DriftPruning prune(WorkspaceLayout layout) {
        return prune(new SnapshotBuilder(layout.tasksDir()).build(), layout.driftDir());
    }
}
