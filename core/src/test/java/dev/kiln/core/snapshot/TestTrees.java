package dev.kiln.core.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Real contract files for tests. */
public final class TestTrees {
    private TestTrees() {
    }

    /** Writes {@code tasks/<leaf>/contract.json} with a canonical id and the given status. */
    public static Path contract(Path tasks, String leaf, String status) throws IOException {
        Path file = tasks.resolve(leaf).resolve("contract.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\n  \"leaf_id\": \"" + leaf + "\",\n  \"title\": \"Leaf " + leaf + "\",\n  \"status\": \"" + status
                + "\",\n  \"enclosure\": [\"src/" + leaf + "\"],\n  \"engine\": null,\n  \"deadline\": \"2026-03-01T00:00:00Z\"\n}\n");
        return file;
    }

    /**
     * Waits until the file system's clock (as it stamps ctime) has moved past {@code file}'s ctime, so that the
     * next change to {@code file} gets a different timestamp even on coarse-grained file systems.
     */
    public static void stepPastTimestampGranularity(Path file) throws IOException, InterruptedException {
        long ctime = StatIdentity.of(file).ctimeNanos();
        Path probe = file.resolveSibling(".granularity-probe");
        try {
            for (int i = 0; i < 2_000; i++) {
                Files.writeString(probe, Integer.toString(i));
                if (StatIdentity.of(probe).ctimeNanos() > ctime) {
                    return;
                }
                Thread.sleep(1);
            }
            throw new IllegalStateException("the file system clock did not advance in 2 s");
        } finally {
            Files.deleteIfExists(probe);
        }
    }
}
