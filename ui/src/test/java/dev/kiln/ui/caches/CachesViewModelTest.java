package dev.kiln.ui.caches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Caches page against a real archive cache and a real source tree. */
class CachesViewModelTest {
    @TempDir
    Path tmp;

    private final EventBus bus = new EventBus();
    private final List<KilnEvent> seen = new ArrayList<>();

    private CachesViewModel open() throws Exception {
        Files.createDirectories(tmp.resolve("ws/tasks"));
        bus.subscribe(seen::add);
        return new CachesViewModel(Kiln.open(tmp.resolve("ws"), bus, Clock.systemUTC()), Background.inline());
    }

    private void pump(CachesViewModel vm) {
        vm.accept(List.copyOf(seen));
        seen.clear();
    }

    @Test
    void fetch_twice_missThenHit_thenEditRebuilds() throws Exception {
        CachesViewModel vm = open();
        Path src = Files.createDirectories(tmp.resolve("src/pkg"));
        Files.writeString(src.resolve("a.py"), "print('a')\n");
        Files.writeString(tmp.resolve("src/pyproject.toml"), "[project]\nname='x'\n");
        vm.sourceProperty().set(tmp.resolve("src").toString());

        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().misses()).isEqualTo(1);
        assertThat(vm.resultProperty().get()).contains("entries").contains("sha256");

        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().hits()).isEqualTo(1);
        assertThat(vm.activity().get(0)).isInstanceOf(ArchiveEvent.Hit.class);

        Files.writeString(src.resolve("a.py"), "print('changed')\n");
        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().changesFound()).isEqualTo(1);
        assertThat(vm.statsProperty().get().builds()).isEqualTo(2);
    }

    @Test
    void fetch_membersLimitTheArchive() throws Exception {
        CachesViewModel vm = open();
        Files.createDirectories(tmp.resolve("src/pkg"));
        Files.writeString(tmp.resolve("src/pkg/a.py"), "a\n");
        Files.writeString(tmp.resolve("src/README.md"), "r\n");
        Files.writeString(tmp.resolve("src/big.bin"), "x".repeat(10_000));
        vm.sourceProperty().set(tmp.resolve("src").toString());
        vm.membersProperty().set("pkg, README.md");

        vm.fetch();
        pump(vm);

        ArchiveEvent.Built built = (ArchiveEvent.Built) vm.activity().stream().filter(e -> e instanceof ArchiveEvent.Built).findFirst().orElseThrow();
        assertThat(built.members()).containsExactly("README.md", "pkg");
    }

    @Test
    void fetch_missingSourceOrMember_isAClearErrorAndCachesNothing() throws Exception {
        CachesViewModel vm = open();
        assertThat(vm.sourceProperty().get()).isEqualTo(tmp.resolve("ws").toAbsolutePath().toString());

        vm.sourceProperty().set(" ");
        vm.fetch();
        assertThat(vm.errorProperty().get()).isEqualTo("Choose a source directory first.");

        vm.sourceProperty().set(tmp.resolve("nope").toString());
        vm.fetch();
        assertThat(vm.errorProperty().get()).endsWith("is not a directory.");

        Files.createDirectories(tmp.resolve("src"));
        vm.sourceProperty().set(tmp.resolve("src").toString());
        vm.membersProperty().set("missing.txt");
        vm.fetch();
        pump(vm);
        assertThat(vm.errorProperty().get()).contains("missing.txt");
        assertThat(vm.statsProperty().get().bytesHeld()).isZero();
        assertThat(vm.busyProperty().get()).isFalse();
    }
}
