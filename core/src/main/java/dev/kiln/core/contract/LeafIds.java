package dev.kiln.core.contract;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Leaf ids. The canonical id of a leaf is its directory's path relative to {@code tasks/}, {@code /}-separated
 * ({@code payments/refunds/retry}). A legacy, stem-shaped id is just the last segment ({@code retry}).
 * Nothing here touches the disk: an id is judged against the location it was read from.
 */
public final class LeafIds {
    /** The file name of a contract inside its leaf directory. */
    public static final String CONTRACT_FILE = "contract.json";

    private LeafIds() {
    }

    /** How a declared id relates to the canonical id of the place it was found. */
    public enum Shape {
        /** Equal to the canonical id. */
        CANONICAL,
        /** The legacy form: just the leaf directory's name; healed to canonical. */
        STEM,
        /** Disagrees with its location (another path, or another name); reported, never rewritten. */
        MISPLACED,
        /** No {@code leaf_id} at all. */
        MISSING
    }

    /** The canonical id of {@code leafDir} under {@code tasksDir}. */
    public static String canonical(Path tasksDir, Path leafDir) {
        Path rel = tasksDir.toAbsolutePath().normalize().relativize(leafDir.toAbsolutePath().normalize());
        if (rel.toString().isEmpty() || rel.startsWith("..")) {
            throw new IllegalArgumentException(leafDir + " is not a leaf directory under " + tasksDir);
        }
        StringBuilder b = new StringBuilder();
        for (Path part : rel) {
            if (b.length() > 0) {
                b.append('/');
            }
            b.append(part);
        }
        return b.toString();
    }

    /** The canonical id of the leaf whose contract is {@code contractFile}, a {@code /}-path relative to {@code tasks/}. */
    public static String ofContractFile(String relativeContractFile) {
        int slash = relativeContractFile.lastIndexOf('/');
        return slash < 0 ? "" : relativeContractFile.substring(0, slash);
    }

    /** The last segment of a canonical id. */
    public static String stem(String canonical) {
        return canonical.substring(canonical.lastIndexOf('/') + 1);
    }

    /** Judges a declared id against the canonical id of its location. */
    public static Shape shape(@Nullable String declared, String canonical) {
        if (declared == null || declared.isBlank()) {
            return Shape.MISSING;
        }
        if (declared.equals(canonical)) {
            return Shape.CANONICAL;
        }
        if (declared.indexOf('/') < 0 && declared.equals(stem(canonical))) {
            return Shape.STEM;
        }
        return Shape.MISPLACED;
    }
}
