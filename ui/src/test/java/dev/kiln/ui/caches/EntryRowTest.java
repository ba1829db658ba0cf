package dev.kiln.ui.caches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.archive.ArchiveEntry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The archive entries table's rows. */
class EntryRowTest {
    private static final Path WS = Path.of("/ws");
    private static final String SHA = "0123456789abcdef".repeat(4);

    @Test
    void insideTheWorkspace_relativeRoot_shortSha_sizeAndNeverValidated() {
        EntryRow r = EntryRow.of(new ArchiveEntry(WS.resolve("src/app"), 0, 12, 3 * 1024 + 512, SHA, 0, Instant.EPOCH, Optional.empty()), WS, "validated");
        assertThat(r).isEqualTo(new EntryRow("src/app", "all", 12, 3584, "3.5 KiB", "0123456789ab", 0, "never"));
    }

    @Test
    void theWorkspaceItself_isDot_outsideIsAbsolute_snapshotPolicyNeverValidates() {
        assertThat(EntryRow.of(new ArchiveEntry(WS, 2, 1, 10, SHA, 4, Instant.EPOCH, Optional.empty()), WS, "validated").root()).isEqualTo(".");
        EntryRow out = EntryRow.of(new ArchiveEntry(Path.of("/elsewhere"), 2, 1, 10, SHA, 4, Instant.EPOCH, Optional.empty()), WS, "snapshot");
        assertThat(out.root()).isEqualTo("/elsewhere");
        assertThat(out.members()).isEqualTo("2");
        assertThat(out.lastValidated()).isEqualTo("not validated (snapshot)");
        assertThat(EntryRow.size(5L * 1024 * 1024)).isEqualTo("5.0 MiB");
        assertThat(EntryRow.size(1000)).isEqualTo("1000 B");
    }
}
