package dev.kiln.core.watch;

import dev.kiln.core.contract.LeafIds;
import dev.kiln.core.snapshot.StatIdentity;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The fallback for the part of {@code tasks/} a partial watch cannot cover: a stat walk of every directory outside
 * the subtrees watched whole ({@link WatchPlan#inFull}), remembering each {@code contract.json}'s
 * {@link StatIdentity}. Each {@link #poll} reports the contract files that appeared, changed or disappeared since
 * the last one, as paths, so the projection's incremental step takes them like watcher events.
 *
 * <p>Concurrency: used by the watcher's supervisor thread only.
 */
final class StatPoller {
    private final Path tasksDir;
    private final WatchPlan plan;
    private Map<Path, StatIdentity> known = new HashMap<>();
    private int directories;

    StatPoller(Path tasksDir, WatchPlan plan) {
        this.tasksDir = tasksDir.toAbsolutePath().normalize();
        this.plan = plan;
    }

    /** Records the current state without reporting it (the full tick after the watch goes live covers it). */
    void baseline() {
        known = walk();
    }

    /** Directories the last walk visited (the polled part of the tree, plus the spine). */
    int directories() {
        return directories;
    }

    /** The contract files that changed since the last walk (created, modified or deleted). */
    List<Path> poll() {
        Map<Path, StatIdentity> now = walk();
        List<Path> changed = new ArrayList<>();
        for (Map.Entry<Path, StatIdentity> e : now.entrySet()) {
            if (!Objects.equals(known.get(e.getKey()), e.getValue())) {
                changed.add(e.getKey());
            }
        }
        for (Path p : known.keySet()) {
            if (!now.containsKey(p)) {
                changed.add(p);
            }
        }
        known = now;
        return changed;
    }

    private Map<Path, StatIdentity> walk() {
        Map<Path, StatIdentity> found = new HashMap<>(Math.max(16, known.size() * 4 / 3 + 16));
        int[] dirs = {0};
        walk(tasksDir, found, dirs, 0);
        directories = dirs[0];
        return found;
    }

    private void walk(Path dir, Map<Path, StatIdentity> found, int[] dirs, int depth) {
        if (depth > 64 || (!dir.equals(tasksDir) && plan.full.contains(dir))) {
            return; // watched whole: its events arrive through inotify
        }
        dirs[0]++;
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                if (name.equals(LeafIds.CONTRACT_FILE)) {
                    try {
                        StatIdentity id = StatIdentity.ofRegularFile(p);
                        if (id != null) {
                            found.put(p, id);
                            continue;
                        }
                    } catch (IOException e) {
                        continue; // vanished or unreadable: the projection reports what it finds itself
                    }
                }
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    walk(p.toAbsolutePath().normalize(), found, dirs, depth + 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or unreadable: what was known below it counts as removed; a full tick reports the failure
        }
    }
}
