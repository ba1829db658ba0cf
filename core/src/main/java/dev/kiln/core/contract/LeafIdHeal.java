package dev.kiln.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@code heal} sweep: rewrites legacy stem-shaped leaf ids to their canonical form.
 *
 * <p>Idempotent: a second sweep finds nothing to do. Only {@code leaf_id} changes; the rewrite goes through
 * the JSON tree so every other field, unknown ones included, keeps its value and position, and the file keeps
 * its mode (atomic replace, and only if the file is still the one read: a concurrent write wins and is reported).
 * Read-only and symlinked contracts are reported, never rewritten. An id that disagrees with its location in any other way is reported as misplaced
 * and left alone: guessing would risk pointing a leaf at another leaf's id. A dry run reads only.
 */
public final class LeafIdHeal {
    private LeafIdHeal() {
    }

    /** Sweeps {@code tasksDir} with the default size limit. */
    public static HealReport sweep(Path tasksDir, boolean dryRun) {
        return sweep(tasksDir, dryRun, ContractStore.DEFAULT_MAX_BYTES);
    }

    /** Sweeps {@code tasksDir}; a missing directory is an empty sweep. */
    public static HealReport sweep(Path tasksDir, boolean dryRun, long maxBytes) {
        Path tasks = tasksDir.toAbsolutePath().normalize();
        List<HealReport.Change> changes = new ArrayList<>();
        List<HealReport.Misplaced> misplaced = new ArrayList<>();
        List<HealReport.Problem> problems = new ArrayList<>();
        List<Path> files = contractFiles(tasks, problems);
        for (Path file : files) {
            String rel = relative(tasks, file);
            String canonical = LeafIds.ofContractFile(rel);
            if (canonical.isEmpty()) {
                problems.add(new HealReport.Problem(rel, "a contract directly in tasks/ belongs to no leaf; move it into a leaf directory"));
                continue;
            }
            try {
                Map<String, Object> seen = ContractReplace.identity(file);
                byte[] bytes = ContractStore.readBounded(file, maxBytes);
                ObjectNode tree = ContractCodec.readTree(bytes);
                JsonNode id = tree.get("leaf_id");
                if (id != null && !id.isNull() && !id.isTextual()) {
                    problems.add(new HealReport.Problem(rel, "leaf_id is not a string (a JSON " + id.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + "); fix it by hand to \"" + canonical + "\""));
                    continue;
                }
                String declared = id == null || id.isNull() ? null : id.textValue();
                switch (LeafIds.shape(declared, canonical)) {
                    case CANONICAL -> { }
                    case MISSING -> problems.add(new HealReport.Problem(rel, "no leaf_id; its location says \"" + canonical + "\""));
                    case MISPLACED -> misplaced.add(new HealReport.Misplaced(rel, java.util.Objects.requireNonNull(declared), canonical));
                    case STEM -> {
                        String refusal = refusal(tasks, file, seen, canonical);
                        if (refusal != null) {
                            problems.add(new HealReport.Problem(rel, refusal));
                            continue;
                        }
                        if (!dryRun) {
                            tree.put("leaf_id", canonical);
                            if (!ContractReplace.replaceIfUnchanged(file, seen, bytes, ContractCodec.writeTree(tree), maxBytes)) {
                                // The newer write is the user's: it stays, and the next heal judges it.
                                problems.add(new HealReport.Problem(rel, "changed while being healed; left as it is, run heal again"));
                                continue;
                            }
                        }
                        changes.add(new HealReport.Change(rel, java.util.Objects.requireNonNull(declared), canonical)); // STEM: declared
                    }
                    default -> throw new IllegalStateException();
                }
            } catch (ContractReadException e) {
                problems.add(new HealReport.Problem(rel, java.util.Objects.requireNonNullElse(e.getMessage(), e.toString())));
            } catch (IOException e) {
                problems.add(new HealReport.Problem(rel, "cannot rewrite: " + ContractStore.describe(e)));
            }
        }
        return new HealReport(dryRun, files.size(), changes, misplaced, problems);
    }

    /**
     * Why heal must not rewrite {@code file}, or null. A read-only contract is a signal (someone froze it), and a
     * symlinked one is not heal's to replace: the rename would turn the link into a plain file, or write where
     * the link's directory really is.
     */
    private static @Nullable String refusal(Path tasks, Path file, Map<String, Object> seen, String canonical) throws IOException {
        if (Files.isSymbolicLink(file)) {
            return "is a symlink (to " + Files.readSymbolicLink(file) + "); heal does not replace a link with a file: set its"
                    + " leaf_id to \"" + canonical + "\" where it points, by hand";
        }
        Path parent = java.util.Objects.requireNonNull(file.getParent(), "a contract file is in a directory");
        Path realParent = parent.toRealPath();
        if (!realParent.equals(tasks.toRealPath().resolve(tasks.relativize(parent).toString()))) {
            return "is reached through a symlinked directory (really in " + realParent + "); heal rewrites only files"
                    + " under tasks/: set its leaf_id to \"" + canonical + "\" by hand";
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        if (!perms.contains(PosixFilePermission.OWNER_WRITE)) {
            return "is read-only (" + PosixFilePermissions.toString(perms) + "), so it is left as it is; to heal it, make it"
                    + " writable, or set its leaf_id to \"" + canonical + "\" by hand";
        }
        return null;
    }

    /** Every regular {@code contract.json} under {@code tasks}, sorted; loops and unreadable directories become problems. */
    private static List<Path> contractFiles(Path tasks, List<HealReport.Problem> problems) {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(tasks)) {
            return files;
        }
        try {
            Files.walkFileTree(tasks, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && file.getFileName().toString().equals(LeafIds.CONTRACT_FILE)) {
                        files.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    String reason = e instanceof FileSystemLoopException
                            ? "symlink loop: leads back to a directory above it; skipped"
                            : "cannot read: " + ContractStore.describe(e);
                    problems.add(new HealReport.Problem(relative(tasks, file), reason));
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            problems.add(new HealReport.Problem(".", "cannot walk tasks/: " + ContractStore.describe(e)));
        }
        files.sort(Comparator.comparing(p -> relative(tasks, p)));
        return files;
    }

    private static String relative(Path tasks, Path p) {
        return tasks.relativize(p).toString().replace('\\', '/');
    }
}
