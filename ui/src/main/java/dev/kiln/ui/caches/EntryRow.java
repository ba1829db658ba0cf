package dev.kiln.ui.caches;

import dev.kiln.core.archive.ArchiveEntry;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * One held archive as the entries table shows it: texts ready for the cells, plus the numbers to sort by.
 *
 * @param root the archived directory, relative to the workspace when inside it
 * @param members the members asked for ({@code all} when the whole directory)
 * @param files files packed
 * @param bytes the archive's size
 * @param size the size for a person
 * @param sha256 the digest's first 12 hex digits
 * @param hits requests served from the cache
 * @param lastValidated when a hit last re-validated it, {@code never} before that, {@code not validated} under the
 *     snapshot policy
 */
public record EntryRow(String root, String members, int files, long bytes, String size, String sha256, long hits, String lastValidated) {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    static EntryRow of(ArchiveEntry e, Path workspace, String policy) {
        Path root = e.root();
        String shown = root.startsWith(workspace) ? (root.equals(workspace) ? "." : workspace.relativize(root).toString()) : root.toString();
        String validated = e.lastValidated().map(TIME::format).orElse("snapshot".equals(policy) ? "not validated (snapshot)" : "never");
        return new EntryRow(shown, e.members() == 0 ? "all" : Integer.toString(e.members()), e.files(), e.bytes(),
                size(e.bytes()), e.sha256().length() > 12 ? e.sha256().substring(0, 12) : e.sha256(), e.hits(), validated);
    }

    /** {@code 512 B}, {@code 3.4 KiB}, {@code 12.0 MiB}. */
    public static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        return bytes < 1024 * 1024 ? String.format("%.1f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
    }
}
