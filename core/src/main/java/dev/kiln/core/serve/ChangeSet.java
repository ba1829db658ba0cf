package dev.kiln.core.serve;

import dev.kiln.core.watch.ChangeDomain;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What changed between two projections, by domain, as the watcher named it: absolute paths of files and
 * directories that were created, modified or deleted (a rename names both ends). {@link #everything()} means the
 * names cannot be trusted (an unknown path, lost events): re-project everything from a full enumeration.
 *
 * @param paths changed paths per domain (immutable)
 * @param everything whether the whole workspace must be re-enumerated
 */
record ChangeSet(Map<ChangeDomain, Set<Path>> paths, boolean everything) {

    private static final ChangeSet EMPTY = new ChangeSet(Map.of(), false);

    public ChangeSet {
        EnumMap<ChangeDomain, Set<Path>> copy = new EnumMap<>(ChangeDomain.class);
        paths.forEach((d, p) -> {
            if (!p.isEmpty()) {
                copy.put(d, Collections.unmodifiableSet(new LinkedHashSet<>(p)));
            }
        });
        paths = Collections.unmodifiableMap(copy);
        everything = everything || copy.containsKey(ChangeDomain.UNKNOWN);
    }

    public static ChangeSet empty() {
        return EMPTY;
    }

    /** A change set that says: re-enumerate everything. */
    public static ChangeSet all() {
        return new ChangeSet(Map.of(), true);
    }

    public static ChangeSet of(ChangeDomain domain, Path... changed) {
        return new ChangeSet(Map.of(domain, Set.of(changed)), false);
    }

    /** Changed paths of one domain; empty when none. */
    public Set<Path> paths(ChangeDomain domain) {
        return paths.getOrDefault(domain, Set.of());
    }

    public boolean touches(ChangeDomain domain) {
        return everything || paths.containsKey(domain);
    }

    public boolean isEmpty() {
        return !everything && paths.isEmpty();
    }

    /** How many paths were named, over all domains. */
    public int size() {
        return paths.values().stream().mapToInt(Set::size).sum();
    }

    /** Accumulates changes between two projections; not thread-safe (the owner guards it). */
    static final class Builder {
        private final EnumMap<ChangeDomain, Set<Path>> paths = new EnumMap<>(ChangeDomain.class);
        private boolean everything;

        public Builder add(ChangeDomain domain, Path path) {
            paths.computeIfAbsent(domain, d -> new LinkedHashSet<>()).add(path);
            if (domain == ChangeDomain.UNKNOWN) {
                everything = true;
            }
            return this;
        }

        public Builder addAll(ChangeSet other) {
            other.paths.forEach((d, p) -> paths.computeIfAbsent(d, x -> new LinkedHashSet<>()).addAll(p));
            everything |= other.everything;
            return this;
        }

        public Builder everything() {
            everything = true;
            return this;
        }

        public boolean isEmpty() {
            return !everything && paths.isEmpty();
        }

        /** The accumulated set; the builder is left empty for the next round. */
        public ChangeSet drain() {
            ChangeSet s = new ChangeSet(paths, everything);
            paths.clear();
            everything = false;
            return s;
        }
    }
}
