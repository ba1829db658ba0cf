package dev.kiln.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
