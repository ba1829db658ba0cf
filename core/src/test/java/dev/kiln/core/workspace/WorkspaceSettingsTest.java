package dev.kiln.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceSettingsTest {
    @TempDir
    Path tmp;

    @Test
    void read_noFile_defaults() {
        assertThat(WorkspaceSettings.read(tmp)).isEqualTo(WorkspaceSettings.defaults());
    }

    @Test
    void read_durationsAndNestedApi() throws IOException {
        Files.writeString(tmp.resolve("kiln.json"), """
                {"interval": "250ms", "heartbeat": 20, "api": {"port": 0, "bind": "::1"}, "uv": "/opt/uv"}""");

        WorkspaceSettings s = WorkspaceSettings.read(tmp);

        assertThat(s.interval()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.heartbeat()).isEqualTo(Duration.ofSeconds(20));
        assertThat(s.apiPort()).isZero();
        assertThat(s.apiBind()).isEqualTo("::1");
        assertThat(s.uv()).contains(Path.of("/opt/uv"));
        assertThat(s.reconcile()).isEqualTo(WorkspaceSettings.defaults().reconcile());
    }

    @Test
    void apiBindFor_fileSaysAllInterfaces_loopbackAndOneWarningNamingFileAndFlag() throws IOException {
        Files.writeString(tmp.resolve("kiln.json"), "{\"api\": {\"bind\": \"0.0.0.0\"}}");
        List<String> warnings = new ArrayList<>();

        String bind = WorkspaceSettings.read(tmp).apiBindFor(null, tmp, warnings::add);

        assertThat(bind).isEqualTo("127.0.0.1");
        assertThat(warnings).singleElement().asString().contains(tmp.resolve("kiln.json").toString())
                .contains("--bind 0.0.0.0");
    }

    @Test
    void apiBindFor_fileNamesAHostOrAPublicAddress_loopback() throws IOException {
        for (String wide : List.of("::", "192.168.1.5", "example.org", "[::]", "0")) {
            Files.writeString(tmp.resolve("kiln.json"), "{\"api\": {\"bind\": \"" + wide + "\"}}");
            List<String> warnings = new ArrayList<>();
            assertThat(WorkspaceSettings.read(tmp).apiBindFor(null, tmp, warnings::add)).as(wide).isEqualTo("127.0.0.1");
            assertThat(warnings).as(wide).hasSize(1);
        }
    }

    @Test
    void apiBindFor_fileNamesLoopback_keptSilently_flagAlwaysWins() throws IOException {
        for (String loopback : List.of("::1", "127.0.0.2", "localhost", "[::1]")) {
            Files.writeString(tmp.resolve("kiln.json"), "{\"api\": {\"bind\": \"" + loopback + "\"}}");
            List<String> warnings = new ArrayList<>();
            assertThat(WorkspaceSettings.read(tmp).apiBindFor(null, tmp, warnings::add)).isEqualTo(loopback);
            assertThat(warnings).as(loopback).isEmpty();
        }
        Files.writeString(tmp.resolve("kiln.json"), "{\"api\": {\"bind\": \"0.0.0.0\"}}");
        List<String> warnings = new ArrayList<>();
        assertThat(WorkspaceSettings.read(tmp).apiBindFor("0.0.0.0", tmp, warnings::add)).isEqualTo("0.0.0.0");
        assertThat(warnings).isEmpty();
    }

    @Test
    void read_malformedJson_namesTheFile() throws IOException {
        Files.writeString(tmp.resolve("kiln.json"), "{ interval: ");

        assertThatThrownBy(() -> WorkspaceSettings.read(tmp))
                .isInstanceOf(WorkspaceException.class)
                .hasMessageContaining(tmp.resolve("kiln.json").toString());
    }

    @Test
    void read_badDuration_namesFieldAndForms() throws IOException {
        Files.writeString(tmp.resolve("kiln.json"), "{\"heartbeat\": \"soon\"}");

        assertThatThrownBy(() -> WorkspaceSettings.read(tmp))
                .hasMessageContaining("kiln.json")
                .hasMessageContaining("'soon' is not a duration");
    }

    @Test
    void read_zeroInterval_refused() throws IOException {
        Files.writeString(tmp.resolve("kiln.json"), "{\"interval\": \"0s\"}");

        assertThatThrownBy(() -> WorkspaceSettings.read(tmp)).hasMessageContaining("'interval' must be a positive duration");
    }

    @Test
    void durations_roundTrip() {
        for (String s : new String[] {"250ms", "1s", "15s", "5m", "1h"}) {
            assertThat(Durations.format(Durations.parse(s))).isEqualTo(s);
        }
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void layout_isWorkspace_onlyWithSettingsOrTasks() throws IOException {
        WorkspaceLayout layout = WorkspaceLayout.of(tmp);
        assertThat(layout.isWorkspace()).isFalse();
        Files.createDirectories(layout.tasksDir());
        assertThat(layout.isWorkspace()).isTrue();
        assertThat(layout.stateFile()).isEqualTo(tmp.toAbsolutePath().resolve("observer/state.json"));
    }
}
