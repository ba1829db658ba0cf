package dev.kiln.core.watch;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which directories of {@code tasks/} get an inotify watch when the watch limit cannot cover them all: a greedy
 * fill in walk order. A subtree that fits the budget left is watched whole ({@link #full}); one that does not has
 * its own directory watched ({@link #spine}, so entries created in it are seen) and its children planned the same
 * way; what no budget is left for is polled by a periodic stat walk ({@link StatPoller}). So the watched part
 * stays as large as the limit allows, and only the rest falls back.
 *
 * <p>Immutable once made; made and read on the watcher's supervisor thread, read by the library's event thread.
 */
final class WatchPlan {
    /** Subtrees watched whole. */
    final Set<Path> full;
    /** Directories watched alone (not their subtrees), each with its planned children. */
    final Map<Path, List<Path>> spine;
    /** Watches the plan uses (full subtrees' directories plus the spine). */
    final int watches;
    /** Directories of the tree left to the stat walk. */
    final int polled;

    private WatchPlan(Set<Path> full, Map<Path, List<Path>> spine, int watches, int polled) {
        this.full = Set.copyOf(full);
        this.spine = Map.copyOf(spine);
        this.watches = watches;
        this.polled = polled;
    }

    /** One directory of the tree and the number of directories in its subtree (itself included). */
    private record Node(Path path, List<Node> children, int size) {
    }

    /**
     * Plans {@code tasksDir} within {@code budget} watches (at least 1: {@code tasks/} itself).
     *
     * @throws IOException when the tree cannot be listed
     */
    static WatchPlan of(Path tasksDir, int budget) throws IOException {
        if (budget < 1) {
            throw new IllegalArgumentException("a partial watch needs at least one watch for tasks/, got " + budget);
        }
        Node root = tree(tasksDir, 0);
        Set<Path> full = new HashSet<>();
        Map<Path, List<Path>> spine = new HashMap<>();
        int used = assign(root, budget, full, spine);
        return new WatchPlan(full, spine, used, root.size() - used);
    }

    /** Whether {@code dir} (absolute, normalized) lies in a subtree watched whole. */
    boolean inFull(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (full.contains(p)) {
                return true;
            }
        }
        return false;
    }

    private static int assign(Node n, int left, Set<Path> full, Map<Path, List<Path>> spine) {
        if (n.size() <= left) {
            full.add(n.path());
            return n.size();
        }
        int used = 1;
        List<Path> planned = new ArrayList<>();
        for (Node c : n.children()) {
            if (left - used <= 0) {
                break;
            }
            used += assign(c, left - used, full, spine);
            planned.add(c.path());
        }
        spine.put(n.path(), List.copyOf(planned));
        return used;
    }

    private static Node tree(Path dir, int depth) throws IOException {
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (!PathRules.isIgnoredDirectory(p) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    dirs.add(p.toAbsolutePath().normalize());
                }
            }
        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return new Node(dir, List.of(), 1); // went away while planning: the next poll or event sees it
        }
        dirs.sort(null);
        List<Node> children = new ArrayList<>(dirs.size());
        int size = 1;
        if (depth < 64) {
            for (Path d : dirs) {
                Node c = tree(d, depth + 1);
                children.add(c);
                size += c.size();
            }
        }
        return new Node(dir.toAbsolutePath().normalize(), children, size);
    }
}
